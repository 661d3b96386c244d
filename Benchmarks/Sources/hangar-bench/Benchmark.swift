import Foundation
import PropertyList

// MARK: - Options

struct Options {
    var quick = false
    var operationFilters: [String] = []
    var datasetFilters: [String] = []
    var contenderFilters: [String] = []
    var iterations: Int?

    static let usage = """
        usage: swift run -c release hangar-bench [--quick] [--filter OPS] [--dataset NAMES] [--contender NAMES]
                                              [--iterations N]

          --quick           small iteration counts: the ~1 MB document and the corpus file, 1 warm-up and 3 runs;
                            the four dataset files 1 run each; memory 1 child each; processes 3 runs; the store rows
                            on 2,000 documents (a smoke run)
          --filter OPS      comma-separated substrings of operation names: binary-decode, binary-encode,
                            xml-decode, xml-encode (the generated documents), datasets-binary-decode,
                            datasets-binary-encode, datasets-xml-decode, datasets-xml-encode (the four dataset files),
                            memory, process, store-batch-save, store-single-save, store-concurrent-save, store-load, store-upgrade,
                            follow-in-process, follow-cross-process (follower latency), live-query (live-query
                            latency: 10,000 documents, 20 live queries), postgres-batch-save,
                            postgres-single-save, postgres-load, postgres-index-query, postgres-throughput,
                            postgres-mixed, postgres-follow (PostgreSQL: need HANGAR_BENCH_POSTGRES_URL or
                            HANGAR_TEST_POSTGRES_URL), postgres-replica-reads (and HANGAR_TEST_POSTGRES_STANDBY_URLS:
                            Scripts/with-postgres.sh --standbys 2),
                            server-get, server-update (pilots-server against the hand-written baseline over HTTP)
                            (e.g. --filter datasets, --filter decode, --filter store, --filter follow, --filter postgres,
                            --filter server)
          --dataset NAMES   comma-separated substrings of dataset names: pilots-1MB, pilots-30MB, corpus-rust-3byte,
                            pilots, wide, strings, deep, store-10k (store-2k with --quick)
          --contender NAMES comma-separated substrings of contender names (e.g. --contender hangar, for a profiler)
          --iterations N    measured runs per contender (default: 11 small, 5 large, 31 corpus; dataset files 5-7;
                            store 9, 5 single saves)

        The dataset files are generated on first use (python3 Scripts/make-datasets.py) into Benchmarks/.datasets
        (or $HANGAR_DATASETS_DIR). The process rows need the release hangar: `swift build -c release --product
        hangar` at the repository root (or $HANGAR_BIN), and plistutil (libplist-utils). The server rows need the
        release pilots-server (`swift build -c release --package-path Examples/Pilots --product pilots-server` at the
        root, or $PILOTS_SERVER_BIN) and this package's release build (pilots-baseline-server and hangar-load beside
        hangar-bench).
        """

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        func list(_ text: String) -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--filter": operationFilters += list(try value(for: argument))
            case "--dataset": datasetFilters += list(try value(for: argument))
            case "--contender": contenderFilters += list(try value(for: argument))
            case "--iterations":
                guard let count = Int(try value(for: argument)), count > 0 else {
                    throw UsageError("--iterations needs a positive number")
                }
                iterations = count
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown argument \(argument)")
            }
        }
    }

    func includes(operationNamed name: String) -> Bool {
        operationFilters.isEmpty || operationFilters.contains { name.contains($0) }
    }

    func includes(_ contender: Contender) -> Bool {
        contenderFilters.isEmpty || contenderFilters.contains { contender.name.lowercased().contains($0) }
    }

    func includes(datasetNamed name: String) -> Bool {
        datasetFilters.isEmpty || datasetFilters.contains { name.lowercased().contains($0) }
    }
}

struct UsageError: Error {
    var message: String?
    init(_ message: String?) { self.message = message }
}

enum Operation: String, CaseIterable {
    case binaryDecode = "binary-decode"
    case binaryEncode = "binary-encode"
    case xmlDecode = "xml-decode"
    case xmlEncode = "xml-encode"

    var shortTitle: String {
        switch self {
        case .binaryDecode: "binary decode"
        case .binaryEncode: "binary encode"
        case .xmlDecode: "XML decode"
        case .xmlEncode: "XML encode"
        }
    }

    var title: String {
        switch self {
        case .binaryDecode: "binary decode (bplist00 bytes -> value)"
        case .binaryEncode: "binary encode (value -> bplist00 bytes)"
        case .xmlDecode: "XML decode (XML bytes -> value)"
        case .xmlEncode: "XML encode (value -> XML bytes)"
        }
    }
}

// MARK: - Datasets

/// One document in every form the contenders need, built before any clock starts.
struct Dataset {
    var name: String
    var value: PropertyList
    /// The same value as an NSDictionary graph, for `PropertyListSerialization`.
    var foundation: NSObject
    /// `PropertyListDecoder` into the document's Codable structs (nil when the document has no Codable mirror).
    var codableDecode: ((Data) throws -> Any)?
    /// `PropertyListEncoder` from the document's Codable structs.
    var codableEncode: ((PropertyListSerialization.PropertyListFormat) throws -> Data)?
    /// The bplist00 bytes every binary decoder reads; their size is the unit of binary MB/s.
    var binary: [UInt8]
    var binaryData: Data
    /// The XML bytes every XML decoder reads (Foundation's XML writer's output, or the dataset's XML file); their
    /// size is the unit of XML MB/s.
    var xml: [UInt8]
    var xmlData: Data
    /// libplist's tree of the binary input (`plist_from_bin`, outside the clock): what its encoders write.
    var libplist: LibPlistTree?
    /// The inputs as files, for the peer that runs in a child process (plistlib); nil for generated documents.
    var binaryPath: String?
    var xmlPath: String?
    var inputsWrittenBy = "XML input written by PropertyListSerialization"
    var warmUp: Int
    var iterations: Int
    var notes: [String] = []

    func referenceSize(for operation: Operation) -> Int {
        switch operation {
        case .binaryDecode, .binaryEncode: binary.count
        case .xmlDecode, .xmlEncode: xml.count
        }
    }
}

struct SetupError: Error, CustomStringConvertible {
    var description: String
}

func codableHooks<Document: Codable & Equatable>(
    for document: Document
) -> (decode: (Data) throws -> Any, encode: (PropertyListSerialization.PropertyListFormat) throws -> Data) {
    let decoder = PropertyListDecoder()
    let decode: (Data) throws -> Any = { data in try decoder.decode(Document.self, from: data) }
    let encode: (PropertyListSerialization.PropertyListFormat) throws -> Data = { format in
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return try encoder.encode(document)
    }
    return (decode, encode)
}

func makeDataset(
    name: String,
    value: PropertyList,
    binary givenBinary: [UInt8]?,
    xml givenXML: [UInt8]? = nil,
    codable: (decode: (Data) throws -> Any, encode: (PropertyListSerialization.PropertyListFormat) throws -> Data)?,
    checkCodable: ((Data) throws -> Bool)?,
    warmUp: Int,
    iterations: Int
) throws -> Dataset {
    let binary = try givenBinary ?? value.encoded(as: .binary)
    let foundation = foundationObject(value)
    let xmlData =
        try givenXML.map { Data($0) }
        ?? PropertyListSerialization.data(fromPropertyList: foundation, format: .xml, options: 0)
    var dataset = Dataset(
        name: name, value: value, foundation: foundation,
        codableDecode: codable?.decode, codableEncode: codable?.encode,
        binary: binary, binaryData: Data(binary), xml: [UInt8](xmlData), xmlData: xmlData,
        warmUp: warmUp, iterations: iterations
    )

    // Checks, outside any clock: every contender reads the same thing.
    let decoded = try PropertyList(binary: binary)
    guard decoded == value else { throw SetupError(description: "\(name): our binary round trip differs") }
    if givenXML != nil {
        let equal = (try? PropertyList(xml: dataset.xml)) == value
        dataset.notes.append("the XML file reads (ours) as the binary file's value: \(equal)")
    }
    do {
        // libplist's trees, checked through one of its writers and our reader: its binary writer takes ~25 s on
        // the 30 MB pilots file, so large inputs go through its XML writer (which keeps whole seconds only).
        let tree = try LibPlistTree.fromBinary(binary)
        dataset.libplist = tree
        let viaBinary = binary.count < 4_000_000
        func readBack(_ tree: LibPlistTree) -> PropertyList? {
            viaBinary ? try? PropertyList(binary: tree.binary().array) : try? PropertyList(xml: tree.xml().array)
        }
        let binaryEqual = readBack(tree) == value
        let xmlEqual =
            (try? LibPlistTree.fromXML(dataset.xml)).flatMap(readBack) == (try? PropertyList(xml: dataset.xml))
        dataset.notes.append(
            "libplist reads each input as we do (checked through its plist_to_\(viaBinary ? "bin" : "xml") and our "
                + "reader): binary \(binaryEqual), XML \(xmlEqual)")
    } catch {
        dataset.notes.append("libplist cannot read the binary input: \(error)")
    }
    if codable != nil, let checkCodable {
        let equal = try checkCodable(dataset.binaryData)
        dataset.notes.append("Codable mirror checked against the value: \(equal ? "equal" : "DIFFERS")")
    }
    do {
        let foundationBinary = try PropertyListSerialization.data(
            fromPropertyList: foundation, format: .binary, options: 0)
        let equal = (try? PropertyList(binary: [UInt8](foundationBinary))) == value
        dataset.notes.append(
            "Foundation's binary output: \(megabytes(foundationBinary.count)) (ours \(megabytes(binary.count))); "
                + "we read it back equal: \(equal)"
        )
    } catch {
        dataset.notes.append("Foundation's binary writer failed on this value: \(error)")
    }
    return dataset
}

func locateCorpusFile(_ name: String) -> String? {
    var candidates: [String] = []
    if let directory = ProcessInfo.processInfo.environment["HANGAR_CORPUS_DIR"] {
        candidates.append(directory + "/" + name)
    }
    // Benchmarks/Sources/hangar-bench/Benchmark.swift -> Benchmarks/../Tests/Corpus, the repository's corpus
    let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    candidates.append(benchmarks.appendingPathComponent("../Tests/Corpus/" + name).standardizedFileURL.path)
    candidates.append(FileManager.default.currentDirectoryPath + "/../Tests/Corpus/" + name)
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
}

// MARK: - Contenders

func contenders(for operation: Operation, on dataset: Dataset, ours: OurCodecs) -> [Contender] {
    let value = dataset.value
    let foundation = dataset.foundation
    var list: [Contender] = []
    switch operation {
    case .binaryDecode:
        let bytes = dataset.binary
        let data = dataset.binaryData
        list.append(Contender(name: "Hangar PropertyList(binary:)", isOurs: true) { try PropertyList(binary: bytes) })
        list.append(Contender(name: "libplist plist_from_bin", isOurs: false) { try LibPlistTree.fromBinary(bytes) })
        list.append(
            Contender(name: "PropertyListSerialization", isOurs: false) {
                try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            })
        if let decode = dataset.codableDecode {
            list.append(Contender(name: "PropertyListDecoder (Codable)", isOurs: false) { try decode(data) })
        }
        if let path = dataset.binaryPath { list.append(plistlibContender(.loads, .binary, path)) }
    case .binaryEncode:
        list.append(Contender(name: "Hangar encoded(as: .binary)", isOurs: true) { try value.encoded(as: .binary) })
        list.append(
            Contender(name: "libplist plist_to_bin", isOurs: false) {
                guard let tree = dataset.libplist else { throw NotAvailable.libplistInput }
                return try tree.binary()
            })
        list.append(
            Contender(name: "PropertyListSerialization", isOurs: false) {
                try PropertyListSerialization.data(fromPropertyList: foundation, format: .binary, options: 0)
            })
        if let encode = dataset.codableEncode {
            list.append(Contender(name: "PropertyListEncoder (Codable)", isOurs: false) { try encode(.binary) })
        }
        if let path = dataset.binaryPath { list.append(plistlibContender(.dumps, .binary, path)) }
    case .xmlDecode:
        let bytes = dataset.xml
        let data = dataset.xmlData
        list.append(
            Contender(name: "Hangar PropertyList(xml:)", isOurs: true) {
                guard ours.xmlReader else { throw NotAvailable.xmlReader }
                return try PropertyList(xml: bytes)
            })
        list.append(Contender(name: "libplist plist_from_xml", isOurs: false) { try LibPlistTree.fromXML(bytes) })
        list.append(
            Contender(name: "PropertyListSerialization", isOurs: false) {
                try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            })
        if let decode = dataset.codableDecode {
            list.append(Contender(name: "PropertyListDecoder (Codable)", isOurs: false) { try decode(data) })
        }
        if let path = dataset.xmlPath { list.append(plistlibContender(.loads, .xml, path)) }
    case .xmlEncode:
        list.append(
            Contender(name: "Hangar encoded(as: .xml)", isOurs: true) {
                guard ours.xmlWriter else { throw NotAvailable.xmlWriter }
                return try value.encoded(as: .xml)
            })
        list.append(
            Contender(name: "libplist plist_to_xml", isOurs: false) {
                guard let tree = dataset.libplist else { throw NotAvailable.libplistInput }
                return try tree.xml()
            })
        list.append(
            Contender(name: "PropertyListSerialization", isOurs: false) {
                try PropertyListSerialization.data(fromPropertyList: foundation, format: .xml, options: 0)
            })
        if let encode = dataset.codableEncode {
            list.append(Contender(name: "PropertyListEncoder (Codable)", isOurs: false) { try encode(.xml) })
        }
        if let path = dataset.xmlPath { list.append(plistlibContender(.dumps, .xml, path)) }
    }
    for index in list.indices where list[index].label == nil {
        let name = list[index].name
        if name.hasPrefix("libplist") {
            list[index].label = "libplist"
        } else if name.hasPrefix("PropertyListSerialization") {
            list[index].label = "PLSerialization"
        } else if name.hasSuffix("(Codable)") {
            list[index].label = "Codable"
        }
    }
    return list
}

enum NotAvailable: Error, CustomStringConvertible {
    case xmlReader, xmlWriter, libplistInput

    var description: String {
        switch self {
        case .xmlReader: "n/a (our XML reader is not on main yet: it throws `unsupported`)"
        case .xmlWriter: "n/a (our XML writer is not on main yet: it throws `unsupported`)"
        case .libplistInput: "n/a (libplist could not read the binary input, so it has no tree to write)"
        }
    }
}

/// Which of our codecs exist in this build; the XML ones throw `unsupported` until they land on main.
struct OurCodecs {
    var xmlReader: Bool
    var xmlWriter: Bool

    static func probe(xmlSample: [UInt8]) -> OurCodecs {
        func available(_ body: () throws(PropertyListError) -> Void) -> Bool {
            do {
                try body()
                return true
            } catch {
                return error.code != .unsupported
            }
        }
        return OurCodecs(
            xmlReader: available { () throws(PropertyListError) in _ = try PropertyList(xml: xmlSample) },
            xmlWriter: available { () throws(PropertyListError) in
                _ = try PropertyList.array(["probe", 1, true]).encoded(as: .xml)
            }
        )
    }
}

// MARK: - Report

/// One operation's measurements on the datasets of a section: (dataset, its contenders, their outcomes).
typealias OperationResults = [(Dataset, [Contender], [Outcome])]

func report(_ operation: Operation, tag: String, results: OperationResults) {
    var notes: [String] = []
    var table = Table(
        header: [
            "dataset", "input", "contender", "median ms", "min ms", "MB/s med", "MB/s best", "allocs",
            "ours/peer med", "ours/peer best",
        ],
        leftAligned: 3
    )
    for (dataset, contenders, outcomes) in results {
        let size = Double(dataset.referenceSize(for: operation))
        var oursSample: Sample?
        if let index = contenders.firstIndex(where: \.isOurs), case .measured(let sample) = outcomes[index] {
            oursSample = sample
        }
        for (index, (contender, outcome)) in zip(contenders, outcomes).enumerated() {
            let first = [
                index == 0 ? dataset.name : "", index == 0 ? megabytes(Int(size)) : "", contender.name,
            ]
            switch outcome {
            case .notAvailable(let reason):
                table.rows.append(first + ["-", "-", "n/a", "n/a", "-", "", ""])
                notes.append(
                    "\(dataset.name), \(contender.name): " + (reason.hasPrefix("n/a") ? reason : "failed: \(reason)"))
            case .measured(let sample):
                let median = sample.median.seconds
                let best = sample.minimum.seconds
                var ratioMedian = ""
                var ratioBest = ""
                if !contender.isOurs {
                    if let ours = oursSample {
                        ratioMedian = fixed(median / ours.median.seconds, 2) + "x"
                        ratioBest = fixed(best / ours.minimum.seconds, 2) + "x"
                    } else {
                        ratioMedian = "n/a"
                        ratioBest = "n/a"
                    }
                }
                table.rows.append(
                    first + [
                        fixed(median * 1e3, 2), fixed(best * 1e3, 2),
                        fixed(size / median / 1e6, 1), fixed(size / best / 1e6, 1),
                        sample.allocations.map(groupedCount) ?? "-",
                        ratioMedian, ratioBest,
                    ])
            }
        }
    }
    print("\n== \(operation.title) [\(tag)] ==")
    print(table.render())
    for note in notes { print("  note: \(note)") }
}

/// One line per dataset and operation: Hangar's MB/s (median) beside every peer's, the best peer (highest median
/// MB/s) and Hangar's speed as a multiple of that peer's (= the peer's median time / ours; above 1: we are faster).
func summarize(_ title: String, results: [(Operation, OperationResults)], legend: [String]) {
    var peers: [String] = []
    for (_, operationResults) in results {
        for (_, contenders, _) in operationResults {
            for contender in contenders where !contender.isOurs && !peers.contains(contender.shortName) {
                peers.append(contender.shortName)
            }
        }
    }
    var table = Table(
        header: ["dataset", "operation", "size", "Hangar"] + peers + ["best peer", "Hangar/best"], leftAligned: 2)
    let datasetNames = results.first.map { $0.1.map(\.0.name) } ?? []
    for datasetName in datasetNames {
        for (operation, operationResults) in results {
            guard let (dataset, contenders, outcomes) = operationResults.first(where: { $0.0.name == datasetName })
            else { continue }
            let size = Double(dataset.referenceSize(for: operation))
            var speeds: [String: Double] = [:]
            var ours: Double?
            for (contender, outcome) in zip(contenders, outcomes) {
                guard case .measured(let sample) = outcome, !sample.durations.isEmpty else { continue }
                let speed = size / sample.median.seconds / 1e6
                if contender.isOurs { ours = speed } else { speeds[contender.shortName] = speed }
            }
            let best = speeds.max { $0.value < $1.value }
            var row = [datasetName, operation.shortTitle, megabytes(Int(size)), ours.map { fixed($0, 1) } ?? "n/a"]
            row += peers.map { peer in speeds[peer].map { fixed($0, 1) } ?? "-" }
            row.append(best?.key ?? "-")
            if let ours, let best {
                row.append(fixed(ours / best.value, 2) + "x")
            } else {
                row.append("-")
            }
            table.rows.append(row)
        }
    }
    print("\n== \(title) ==")
    print(table.render())
    for line in legend { print("  \(line)") }
}
