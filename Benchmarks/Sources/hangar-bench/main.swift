// hangar-bench: our codec against Foundation's PropertyListSerialization and PropertyListDecoder/Encoder,
// on the same documents, in one run; and the store against raw SQLite on the same blobs. See Benchmarks/README.md.
import Foundation
import PropertyList

// The hidden child mode of the memory rows (Memory.swift): read a file, decode it, report the peak RSS, exit.
if CommandLine.arguments.dropFirst().first == "--decode-rss" {
    runDecodeMemoryChild(Array(CommandLine.arguments.dropFirst(2)))
}
// The hidden child mode of the cross-process follower row (FollowLatency.swift): commit saves, then exit.
if CommandLine.arguments.dropFirst().first == "--commit-child" {
    runCommitChild(Array(CommandLine.arguments.dropFirst(2)))
}

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    if let message = error.message {
        FileHandle.standardError.write(Data("hangar-bench: \(message)\n\(Options.usage)\n".utf8))
        exit(2)
    }
    print(Options.usage)
    exit(0)
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
        .map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "unknown"
}

/// Runs one section of rows; a failure ends the run with exit status 1 and one line naming the section.
func runSection(_ rows: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("hangar-bench: \(rows) failed: \(error)\n".utf8))
        exit(1)
    }
}

func elapsed(since start: ContinuousClock.Instant) -> String {
    fixed((ContinuousClock.now - start).seconds, 1) + " s"
}

let info = ProcessInfo.processInfo
print("hangar-bench \(options.quick ? "(quick) " : "")- \(Date())")
print(
    "machine: \(info.operatingSystemVersionString), \(info.activeProcessorCount) cores, "
        + "\(info.physicalMemory >> 30) GiB; load average before: \(loadAverage())")
print("allocation counting: \(Harness.countsAllocations ? "on (malloc-family calls per run, fewest seen)" : "off")")

// MARK: Datasets

struct DatasetPlan {
    var name: String
    var pilots: Int
    var warmUp: Int
    var iterations: Int
}

// The codec datasets are built only when a codec operation runs (`--filter store` skips their ~35 s setup).
let codecOperations = Operation.allCases.filter { options.includes(operationNamed: $0.rawValue) }
var plans = [DatasetPlan(name: "pilots-1MB", pilots: 1_000, warmUp: 2, iterations: 11)]
if !options.quick {
    plans.append(DatasetPlan(name: "pilots-30MB", pilots: 31_000, warmUp: 1, iterations: 5))
}
if codecOperations.isEmpty { plans = [] }

var datasets: [Dataset] = []
let setupStart = ContinuousClock.now
do {
    for plan in plans where options.includes(datasetNamed: plan.name) {
        let document = DocumentGenerator.pilots(count: plan.pilots, seed: 0x4841_4E47_4152 ^ UInt64(plan.pilots))
        let hooks = codableHooks(for: document)
        var dataset = try makeDataset(
            name: plan.name, value: document.propertyList, binary: nil, codable: hooks,
            checkCodable: { data in try PropertyListDecoder().decode(PilotsDocument.self, from: data) == document },
            warmUp: options.quick ? 1 : plan.warmUp,
            iterations: options.iterations ?? (options.quick ? 3 : plan.iterations)
        )
        dataset.notes.insert("\(plan.pilots) pilots, seed fixed", at: 0)
        datasets.append(dataset)
    }

    let corpusName = "corpus-rust-3byte"
    let corpusFile = "rust-three-byte-offsets.bplist"
    if !codecOperations.isEmpty && options.includes(datasetNamed: corpusName) {
        if let path = locateCorpusFile(corpusFile), let data = FileManager.default.contents(atPath: path) {
            let bytes = [UInt8](data)
            let value = try PropertyList(binary: bytes)
            var structs: PlatformsDocument?
            do {
                structs = try PropertyListDecoder().decode(PlatformsDocument.self, from: data)
            } catch {
                print("note: the Codable mirror does not fit \(corpusFile): \(error)")
            }
            var dataset = try makeDataset(
                name: corpusName, value: value, binary: bytes, codable: structs.map { codableHooks(for: $0) },
                checkCodable: { data in
                    // The mirror holds the whole file: its own binary output reads back as the corpus value.
                    guard let structs else { return false }
                    let encoder = PropertyListEncoder()
                    encoder.outputFormat = .binary
                    return try PropertyList(binary: [UInt8](encoder.encode(structs))) == value
                },
                warmUp: options.quick ? 1 : 5,
                iterations: options.iterations ?? (options.quick ? 3 : 31)
            )
            dataset.notes.insert("\(path)", at: 0)
            if structs == nil { dataset.notes.append("Codable rows left out (no mirror fits)") }
            datasets.append(dataset)
        } else {
            print(
                "\nnote: corpus file \(corpusFile) is MISSING (looked in ../Tests/Corpus relative to Benchmarks/ "
                    + "and to the current directory; set HANGAR_CORPUS_DIR to override): that dataset is skipped")
        }
    }
} catch {
    FileHandle.standardError.write(Data("hangar-bench: setup failed: \(error)\n".utf8))
    exit(1)
}

let ours = OurCodecs.probe(xmlSample: datasets.first?.xml ?? [])
if !datasets.isEmpty {
    print("MB/s = reference input size / time (the same size for every contender of a row group);")
    print("ours/peer = peer time / our time (>1: we are faster); contenders take turns within each round.")
    print(
        "\nsetup: \(elapsed(since: setupStart)); our XML reader: \(ours.xmlReader ? "present" : "n/a (unsupported)"), "
            + "our XML writer: \(ours.xmlWriter ? "present" : "n/a (unsupported)")")
}
for dataset in datasets {
    print(
        "  \(dataset.name): binary \(megabytes(dataset.binary.count)), XML \(megabytes(dataset.xml.count)) "
            + "(XML input written by PropertyListSerialization); \(dataset.warmUp) warm-up + \(dataset.iterations) runs"
    )
    for note in dataset.notes { print("    \(note)") }
}
fflush(nil)  // all streams: progress shows when stdout is a file

// MARK: Runs

let runStart = ContinuousClock.now
var resultsByOperation: [(Operation, OperationResults)] = []
for operation in codecOperations where !datasets.isEmpty {
    var results: [(Dataset, [Contender], [Outcome])] = []
    for dataset in datasets {
        let list = contenders(for: operation, on: dataset, ours: ours).filter(options.includes)
        let outcomes = Harness.measure(list, warmUp: dataset.warmUp, iterations: dataset.iterations)
        results.append((dataset, list, outcomes))
    }
    report(operation, tag: operation.rawValue, results: results)
    resultsByOperation.append((operation, results))
    fflush(nil)  // all streams: progress shows when stdout is a file
}

if !codecOperations.isEmpty && !datasets.isEmpty {
    summarize(
        "generated documents: MB/s (median); Hangar / the best peer [codec]",
        results: resultsByOperation,
        legend: ["MB/s = reference input size / median time; Hangar/best = best peer's median time / ours"])
}

// MARK: The four dataset shapes, decode memory, whole processes (issue 10)

runSection("dataset rows") { try runDatasetSections(options: options, ours: ours) }

// MARK: SQLiteStore rows

let storePlan =
    options.quick
    ? StorePlan(
        name: "store-2k", documents: 2_000, singleSaves: 100, loads: 2_000, warmUp: 1, iterations: 3,
        singleSaveIterations: 3)
    : StorePlan(
        name: "store-10k", documents: 10_000, singleSaves: 500, loads: 10_000, warmUp: 1, iterations: 9,
        singleSaveIterations: 5)
let storeOperations = StoreOperation.allCases.filter { options.includes(operationNamed: $0.rawValue) }
if !storeOperations.isEmpty && options.includes(datasetNamed: storePlan.name) {
    runSection("store rows") { try runStoreBenchmarks(storePlan, operations: storeOperations, options: options) }
}
// MARK: Encryption rows

runSection("encryption rows") { try runEncryptionSection(options: options) }
// MARK: PostgreSQL rows (issue 13)

runSection("PostgreSQL rows") { try runPostgresSection(options: options) }
runSection("replica-reads row") { try runReplicaReadSection(options: options) }
// MARK: Server rows: pilots-server against the hand-written baseline over HTTP

runSection("server rows") { try runServerSection(options: options) }
// MARK: Follower latency (issue 12)

runSection("follower latency rows") {
    let scratch = try ScratchFolder("follow")
    defer { scratch.remove() }
    try runFollowLatencySection(options: options, directory: scratch.path)
}
// MARK: Live-query latency (issue 37)

runSection("live-query rows") {
    let scratch = try ScratchFolder("live")
    defer { scratch.remove() }
    try runLiveQuerySection(options: options, directory: scratch.path)
}
// MARK: Sync rows (issue 23): Hangar Sync through pilots-server

runSection("sync rows") { try runSyncSection(options: options) }
print("\nruns: \(elapsed(since: runStart)); load average after: \(loadAverage())")
