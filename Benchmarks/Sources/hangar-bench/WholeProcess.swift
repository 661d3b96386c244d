import Foundation
import PropertyList

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Whole processes: `hangar convert` (the root package's CLI, release build) against libplist's `plistutil` on the
// same files, each a real process started with posix_spawn and waited for; wall time from spawn to exit, so start-up,
// reading, converting and writing are all in it. The tools take turns within each round.

/// The release `hangar` next to this package (`../.build/release/hangar`), or `$HANGAR_BIN`.
func locateHangarExecutable() -> String? {
    let candidate =
        ProcessInfo.processInfo.environment["HANGAR_BIN"]
        ?? URL(fileURLWithPath: BenchPaths.benchmarks + "/../.build/release/hangar").standardizedFileURL.path
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
}

func locateInPath(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

struct ProcessFailure: Error, CustomStringConvertible {
    var description: String
}

/// Starts `arguments[0]` with the rest as its arguments (standard output to /dev/null, standard error ours) and
/// waits for it: the wall time of the whole process.
func timeProcess(_ arguments: [String]) throws -> Duration {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let clock = ContinuousClock()
    let start = clock.now
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    guard spawned == 0 else { throw ProcessFailure(description: "cannot start \(arguments[0]): errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let end = clock.now
    // WIFEXITED and WEXITSTATUS are macros Swift does not import: exited normally with status 0.
    guard status & 0x7f == 0 && (status >> 8) & 0xff == 0 else {
        throw ProcessFailure(description: "\(arguments.joined(separator: " ")) failed (wait status \(status))")
    }
    return end - start
}

struct ProcessRow {
    var input: String
    var direction: String
    var hangar: [String]
    var plistutil: [String]
    /// The files the two tools wrote, checked against the input's value after the runs.
    var outputs: [String]
    var inputPath: String
}

/// The whole-process rows: binary -> XML and XML -> binary of the 5,000-pilot file, and of tiny files (start-up).
func runProcessRows(files: DatasetFiles, warmUp: Int, runs: Int) {
    print("\n== whole process: hangar convert vs plistutil, wall time of real processes [process] ==")
    guard let hangar = locateHangarExecutable() else {
        print(
            "  SKIPPED: no release hangar at ../.build/release/hangar (relative to Benchmarks/), nor $HANGAR_BIN: "
                + "build it first with `swift build -c release --product hangar` at the repository root")
        return
    }
    guard let plistutil = locateInPath("plistutil") else {
        print("  SKIPPED: no plistutil in PATH (apt: libplist-utils)")
        return
    }
    let subset: (binary: String, xml: String)
    do {
        subset = try files.pilotsSubset()
    } catch {
        print("  SKIPPED: cannot make the 5,000-pilot files: \(error)")
        return
    }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("hangar-bench-process-\(getpid())")
        .path
    try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: output) }

    func rows(_ name: String, binary: String, xml: String) -> [ProcessRow] {
        let toXML = (hangar: output + "/\(name)-hangar.xml", plistutil: output + "/\(name)-plistutil.xml")
        let toBinary = (hangar: output + "/\(name)-hangar.bplist", plistutil: output + "/\(name)-plistutil.bplist")
        return [
            ProcessRow(
                input: (binary as NSString).lastPathComponent, direction: "binary -> XML",
                hangar: [hangar, "convert", "xml1", binary, "-o", toXML.hangar],
                plistutil: [plistutil, "-i", binary, "-o", toXML.plistutil, "-f", "xml"],
                outputs: [toXML.hangar, toXML.plistutil], inputPath: binary),
            ProcessRow(
                input: (xml as NSString).lastPathComponent, direction: "XML -> binary",
                hangar: [hangar, "convert", "binary1", xml, "-o", toBinary.hangar],
                plistutil: [plistutil, "-i", xml, "-o", toBinary.plistutil, "-f", "bin"],
                outputs: [toBinary.hangar, toBinary.plistutil], inputPath: xml),
        ]
    }
    let allRows =
        rows("pilots-5k", binary: subset.binary, xml: subset.xml)
        + rows("tiny", binary: files.binaryPath("tiny"), xml: files.xmlPath("tiny"))

    var table = Table(
        header: ["input", "size", "conversion", "command", "median ms", "min ms", "ours/peer med", "ours/peer best"],
        leftAligned: 4)
    var notes: [String] = []
    for row in allRows {
        var hangarTimes: [Duration] = []
        var plistutilTimes: [Duration] = []
        do {
            for round in 0..<(warmUp + runs) {
                let hangarTime = try timeProcess(row.hangar)
                let plistutilTime = try timeProcess(row.plistutil)
                if round >= warmUp {
                    hangarTimes.append(hangarTime)
                    plistutilTimes.append(plistutilTime)
                }
            }
        } catch {
            notes.append("\(row.input) \(row.direction): \(error)")
            continue
        }
        // Both outputs must hold the input's value (our reader, format detected from the bytes).
        let value = try? readWholeFile(row.inputPath).decodedPropertyList()
        let equal = row.outputs.map { (try? readWholeFile($0).decodedPropertyList()) == value && value != nil }
        notes.append(
            "\(row.input) \(row.direction): hangar's output holds the input's value: \(equal[0]), "
                + "plistutil's: \(equal[1])")
        let ours = Sample(durations: hangarTimes)
        let peer = Sample(durations: plistutilTimes)
        let size = (try? FileManager.default.attributesOfItem(atPath: row.inputPath)[.size] as? Int) ?? 0
        table.rows.append([
            row.input, megabytes(size), row.direction, "hangar convert \(row.hangar[2])",
            fixed(ours.median.milliseconds, 1), fixed(ours.minimum.milliseconds, 1), "", "",
        ])
        table.rows.append([
            "", "", "", "plistutil -f \(row.plistutil.last ?? "")", fixed(peer.median.milliseconds, 1),
            fixed(peer.minimum.milliseconds, 1),
            fixed(peer.median.seconds / ours.median.seconds, 2) + "x",
            fixed(peer.minimum.seconds / ours.minimum.seconds, 2) + "x",
        ])
        fflush(nil)
    }
    print("  \(warmUp) warm-up + \(runs) runs of each, taking turns; hangar: \(hangar); plistutil: \(plistutil)")
    print("  commands: hangar convert xml1|binary1 IN -o OUT; plistutil -i IN -o OUT -f xml|bin")
    print("  pilots-5k: the first 5,000 pilots of the pilots document, written by our library (binary and XML)")
    print(table.render())
    print("  ours/peer = plistutil's wall time / hangar's (>1: hangar is faster)")
    for note in notes { print("  note: \(note)") }
}

extension [UInt8] {
    /// Binary or XML, told by the first bytes (for the output checks).
    func decodedPropertyList() throws -> PropertyList {
        starts(with: Array("bplist".utf8)) ? try PropertyList(binary: self) : try PropertyList(xml: self)
    }
}
