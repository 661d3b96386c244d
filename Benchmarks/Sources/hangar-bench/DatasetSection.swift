import Foundation

// Issue 10 §4: every peer in one run on the four dataset shapes (`--filter datasets`), the peak memory of a binary
// decode (`--filter memory`) and whole processes converting a file (`--filter process`).

struct FileDatasetPlan {
    var name: String
    var warmUp: Int
    var iterations: Int
}

/// Rounds per dataset: few, as Foundation's and libplist's writers take ~10-25 s a run on some of these files.
let fileDatasetPlans = [
    FileDatasetPlan(name: "pilots", warmUp: 1, iterations: 5),
    FileDatasetPlan(name: "wide", warmUp: 1, iterations: 7),
    FileDatasetPlan(name: "strings", warmUp: 1, iterations: 7),
    FileDatasetPlan(name: "deep", warmUp: 1, iterations: 7),
]

func runDatasetSections(options: Options, ours codecs: OurCodecs) throws {
    let operations = Operation.allCases.filter { options.includes(operationNamed: "datasets-" + $0.rawValue) }
    let names = DatasetFiles.names.filter { options.includes(datasetNamed: $0) }
    let wantsCodecs = !operations.isEmpty && !names.isEmpty
    let wantsMemory = options.includes(operationNamed: "memory") && !names.isEmpty
    let wantsProcess = options.includes(operationNamed: "process")
    guard wantsCodecs || wantsMemory || wantsProcess else { return }

    let files = try DatasetFiles.prepare()
    print("\ndataset files (issue 10): \(files.origin)")
    fflush(nil)

    if wantsCodecs {
        let setupStart = ContinuousClock.now
        var datasets: [Dataset] = []
        for plan in fileDatasetPlans where names.contains(plan.name) {
            let warmUp = options.quick ? 0 : plan.warmUp
            let iterations = options.iterations ?? (options.quick ? 1 : plan.iterations)
            var dataset: Dataset
            if options.quick && plan.name == "pilots" {
                // A smoke run: the whole pilots file costs Foundation's and libplist's writers ~25 s a run each.
                let subset = try files.pilotsSubset()
                dataset = try makeFileDataset(
                    name: "pilots-5k", binaryPath: subset.binary, xmlPath: subset.xml, pilotsShape: true,
                    warmUp: warmUp, iterations: iterations)
                dataset.inputsWrittenBy = "the first 5,000 pilots of pilots.bplist, written by our library (--quick)"
            } else {
                dataset = try makeFileDataset(
                    name: plan.name, binaryPath: files.binaryPath(plan.name), xmlPath: files.xmlPath(plan.name),
                    pilotsShape: plan.name == "pilots", warmUp: warmUp, iterations: iterations)
                dataset.inputsWrittenBy = "binary and XML files written by plistlib (Scripts/make-datasets.py)"
                if let summary = files.summary(plan.name) { dataset.notes.insert(summary, at: 0) }
            }
            datasets.append(dataset)
        }
        print(
            "setup: \(elapsed(since: setupStart)); our XML reader: \(codecs.xmlReader ? "present" : "n/a"), "
                + "our XML writer: \(codecs.xmlWriter ? "present" : "n/a")")
        for dataset in datasets {
            print(
                "  \(dataset.name): binary \(megabytes(dataset.binary.count)), XML \(megabytes(dataset.xml.count)) "
                    + "(\(dataset.inputsWrittenBy)); \(dataset.warmUp) warm-up + \(dataset.iterations) runs")
            for note in dataset.notes { print("    \(note)") }
        }
        fflush(nil)
        var all: [(Operation, OperationResults)] = []
        for operation in operations {
            var results: OperationResults = []
            for dataset in datasets {
                let list = contenders(for: operation, on: dataset, ours: codecs).filter(options.includes)
                let outcomes = Harness.measure(list, warmUp: dataset.warmUp, iterations: dataset.iterations)
                results.append((dataset, list, outcomes))
            }
            report(operation, tag: "datasets-" + operation.rawValue, results: results)
            all.append((operation, results))
            fflush(nil)
        }
        summarize(
            "the four datasets: MB/s (median) of the file's size; Hangar / the best peer [datasets]", results: all,
            legend: [
                "MB/s = the input file's size (bplist for binary rows, XML for XML rows; encoders: the file they",
                "would write) / median time. Hangar/best = best peer's median time / ours (>1: we are faster).",
                "PLSerialization = Foundation's PropertyListSerialization (NSDictionary graph built outside the clock);",
                "Codable = PropertyListDecoder/Encoder with structs mirroring the document: pilots only (the other",
                "shapes have no natural Codable type: a 200,000-key dictionary, an array of strings, a 500-deep chain).",
                "plistlib* = Python \(plistlibPythonVersion ?? "3")'s plistlib, measured in a python3 child process in its own",
                "loop on the same file, after the in-process contenders' rounds (not taking turns with them).",
            ])
    }
    if wantsMemory {
        runMemoryRows(files: files, names: names, runs: options.quick ? 1 : 3)
        fflush(nil)
    }
    if wantsProcess {
        runProcessRows(files: files, warmUp: 1, runs: options.quick ? 3 : 11)
        fflush(nil)
    }
}
