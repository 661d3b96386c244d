import Foundation
import PropertyList

// The four dataset shapes of issue 10 (pilots, wide, strings, deep): files that `Scripts/make-datasets.py`
// writes with Python's plistlib (binary and XML), generated on first use into a cache folder and read as they are,
// so every contender, in process or not, reads the very same bytes.

enum BenchPaths {
    /// This package's folder (`Benchmarks/`): from this source file's path, else the current directory.
    static var benchmarks: String {
        let fromSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        if FileManager.default.fileExists(atPath: fromSource + "/Scripts/make-datasets.py") { return fromSource }
        return FileManager.default.currentDirectoryPath
    }

    static var scripts: String { benchmarks + "/Scripts" }

    /// Where the generated dataset files live: `$HANGAR_DATASETS_DIR`, else `Benchmarks/.datasets` (git-ignored).
    static var datasets: String {
        ProcessInfo.processInfo.environment["HANGAR_DATASETS_DIR"] ?? benchmarks + "/.datasets"
    }
}

/// The generated files and what the script's manifest says about them.
struct DatasetFiles {
    static let names = ["pilots", "wide", "strings", "deep"]

    var directory: String
    /// How the files came to be there this run (generated, or reused from an earlier run).
    var origin: String

    func binaryPath(_ name: String) -> String { directory + "/" + name + ".bplist" }
    func xmlPath(_ name: String) -> String { directory + "/" + name + ".xml" }

    /// The manifest's description of one dataset: logical object count and nesting depth.
    func summary(_ name: String) -> String? {
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json"),
            let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let entry = manifest[name] as? [String: Any],
            let objects = entry["objects"] as? Int, let depth = entry["max_depth"] as? Int
        else { return nil }
        let unique = (entry["bplist_unique_objects"] as? Int).map { ", \(groupedCount(UInt64($0))) after uniquing" }
        return "\(groupedCount(UInt64(objects))) objects\(unique ?? ""), depth \(depth)"
    }

    /// The files of the four datasets (and `tiny`), generated with python3 when missing or when the script changed
    /// since they were made (a copy of the script that made them is kept beside them).
    static func prepare() throws -> DatasetFiles {
        let directory = BenchPaths.datasets
        let script = BenchPaths.scripts + "/make-datasets.py"
        let stamp = directory + "/make-datasets.py.used"
        let manager = FileManager.default
        guard let scriptText = manager.contents(atPath: script) else {
            throw SetupError(description: "the dataset script \(script) is missing")
        }
        let wanted = (names + ["tiny"]).flatMap { [$0 + ".bplist", $0 + ".xml"] } + ["manifest.json"]
        let complete = wanted.allSatisfy { manager.fileExists(atPath: directory + "/" + $0) }
        if complete && manager.contents(atPath: stamp) == scriptText {
            return DatasetFiles(directory: directory, origin: "reused from \(directory)")
        }
        let start = ContinuousClock.now
        try? manager.removeItem(atPath: directory)
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try runChild("/usr/bin/env", ["python3", script, directory], passingStandardError: true)
        guard result.status == 0 else {
            throw SetupError(description: "python3 \(script) \(directory) failed (exit status \(result.status))")
        }
        try scriptText.write(to: URL(fileURLWithPath: stamp))
        return DatasetFiles(
            directory: directory,
            origin: "generated into \(directory) by python3 Scripts/make-datasets.py in \(elapsed(since: start))")
    }

    /// The first 5,000 pilots of the pilots document, as binary (our writer) and XML (our writer), for the
    /// whole-process rows; made through our library on first use and kept beside the other files.
    func pilotsSubset(count: Int = 5_000) throws -> (binary: String, xml: String) {
        let name = "pilots-\(count / 1000)k"
        let paths = (binary: directory + "/" + name + ".bplist", xml: directory + "/" + name + ".xml")
        let manager = FileManager.default
        if manager.fileExists(atPath: paths.binary) && manager.fileExists(atPath: paths.xml) { return paths }
        let document = try PropertyList(binary: try readWholeFile(binaryPath("pilots")))
        guard let objects = document["objects"]?.arrayValue, let major = document["majorVersion"],
            let minor = document["minorVersion"]
        else { throw SetupError(description: "pilots.bplist is not the pilots document the script writes") }
        let subset: PropertyList = [
            "majorVersion": major, "minorVersion": minor, "objects": .array(Array(objects.prefix(count))),
        ]
        try Data(subset.encoded(as: .binary)).write(to: URL(fileURLWithPath: paths.binary))
        try Data(subset.encoded(as: .xml)).write(to: URL(fileURLWithPath: paths.xml))
        return paths
    }
}

/// A whole file into an array with one allocation of its size (no transient second copy, which would move the
/// decode-memory rows' baseline).
func readWholeFile(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw SetupError(description: "cannot open \(path)") }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw SetupError(description: "cannot stat \(path)") }
    let size = Int(status.st_size)
    return try [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
        guard let base = buffer.baseAddress else { return }
        while initialized < size {
            let count = read(descriptor, base + initialized, size - initialized)
            guard count > 0 else { throw SetupError(description: "cannot read \(path)") }
            initialized += count
        }
    }
}

/// Runs a child process to its end, collecting its standard output (its standard error goes to ours, or nowhere).
func runChild(
    _ executable: String, _ arguments: [String], passingStandardError: Bool = true
) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    if !passingStandardError { process.standardError = FileHandle.nullDevice }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}

// MARK: - Loading a dataset

/// One of the four documents as a codec row group: its binary and XML files as the inputs, their value (our
/// reader) as the encoders' input, a Codable mirror for the pilots shape only.
func makeFileDataset(
    name: String, binaryPath: String, xmlPath: String, pilotsShape: Bool, warmUp: Int, iterations: Int
) throws -> Dataset {
    let binary = try readWholeFile(binaryPath)
    let xml = try readWholeFile(xmlPath)
    let value = try PropertyList(binary: binary)
    var hooks: (decode: (Data) throws -> Any, encode: (PropertyListSerialization.PropertyListFormat) throws -> Data)?
    var checkCodable: ((Data) throws -> Bool)?
    if pilotsShape {
        let structs = try PropertyListDecoder().decode(DatasetPilotsDocument.self, from: Data(binary))
        hooks = codableHooks(for: structs)
        checkCodable = { _ in
            // The mirror holds the whole file: its own binary output reads back as the file's value.
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            return try PropertyList(binary: [UInt8](encoder.encode(structs))) == value
        }
    }
    var dataset = try makeDataset(
        name: name, value: value, binary: binary, xml: xml, codable: hooks, checkCodable: checkCodable,
        warmUp: warmUp, iterations: iterations)
    dataset.binaryPath = binaryPath
    dataset.xmlPath = xmlPath
    if hooks == nil { dataset.notes.append("no Codable rows (a Codable mirror only for the pilots shape)") }
    return dataset
}

// MARK: - The Codable mirror of the script's pilots document

/// `{majorVersion, minorVersion, objects: [{name, id, licensed, airplanes: [...]}]}` (make-datasets.py's
/// `make_pilots`): a different shape from the generated `PilotsDocument` of the pilots-1MB/30MB rows.
struct DatasetPilotsDocument: Codable, Equatable {
    var majorVersion: Int
    var minorVersion: Int
    var objects: [DatasetPilot]
}

struct DatasetPilot: Codable, Equatable {
    var name: String
    var id: Int
    var licensed: Date
    var airplanes: [DatasetAirplane]
}

struct DatasetAirplane: Codable, Equatable {
    var classTag: String
    var model: String
    var registrationNumber: String
    /// Up to 2^40: the 1-, 2-, 4- and 8-byte integer encodings.
    var airframeHours: Int
    var engineHorsepower: Int
    var photo: Data
    var notes: String
    var rating: Double

    enum CodingKeys: String, CodingKey {
        case classTag = "class"
        case model, registrationNumber, airframeHours, engineHorsepower, photo, notes, rating
    }
}
