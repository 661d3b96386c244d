import Foundation
import PropertyList

// Peak memory of a decode: a child process (this executable, re-run in a hidden mode) reads a binary file into
// one buffer, decodes it with one contender and reports its peak resident set (VmHWM). Its baseline is the same
// mode reading the same file and decoding the script's tiny.bplist with the same contender instead (the runtime,
// the libraries' pages, the file buffer), so the difference is what decoding that file took at its peak.

enum DecodeMemoryContender: String, CaseIterable {
    case hangar, libplist, foundation

    var title: String {
        switch self {
        case .hangar: "Hangar PropertyList(binary:)"
        case .libplist: "libplist plist_from_bin"
        case .foundation: "PropertyListSerialization"
        }
    }

    /// Decodes `bytes` the way this contender's callers would (Foundation from a `Data` over the same buffer).
    func decode(_ bytes: [UInt8]) throws {
        switch self {
        case .hangar:
            blackHole(try PropertyList(binary: bytes))
        case .libplist:
            blackHole(try LibPlistTree.fromBinary(bytes))
        case .foundation:
            var bytes = bytes
            try bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                let data = Data(bytesNoCopy: base, count: buffer.count, deallocator: .none)
                blackHole(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
            }
        }
    }
}

/// The hidden child mode: `hangar-bench --decode-rss FILE CONTENDER [BASELINE-FILE]`. Prints `VmHWM <kB>`.
func runDecodeMemoryChild(_ arguments: [String]) -> Never {
    do {
        guard arguments.count >= 2, let contender = DecodeMemoryContender(rawValue: arguments[1]) else {
            throw SetupError(description: "usage: --decode-rss FILE hangar|libplist|foundation [BASELINE-FILE]")
        }
        let bytes = try readWholeFile(arguments[0])
        if arguments.count > 2 {
            try contender.decode(try readWholeFile(arguments[2]))
        } else {
            try contender.decode(bytes)
        }
        blackHole(bytes)
        guard let peak = peakResidentKilobytes() else { throw SetupError(description: "no VmHWM in /proc/self/status") }
        print("VmHWM \(peak)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("hangar-bench --decode-rss: \(error)\n".utf8))
        exit(1)
    }
}

/// This process's peak resident set size so far, in kB (Linux: VmHWM in /proc/self/status).
func peakResidentKilobytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
}

/// Runs the child mode and returns its VmHWM in kB.
func childPeakKilobytes(file: String, contender: DecodeMemoryContender, baseline: String?) throws -> Int {
    let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let arguments = ["--decode-rss", file, contender.rawValue] + (baseline.map { [$0] } ?? [])
    let result = try runChild(executable, arguments)
    let text = String(decoding: result.output, as: UTF8.self)
    guard result.status == 0, text.hasPrefix("VmHWM "),
        let kilobytes = Int(text.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        throw SetupError(description: "the --decode-rss child failed (exit status \(result.status)): \(text)")
    }
    return kilobytes
}

/// The peak-memory rows: every dataset's binary file, decoded by Hangar, libplist and Foundation in child processes.
func runMemoryRows(files: DatasetFiles, names: [String], runs: Int) {
    let tiny = files.binaryPath("tiny")
    var table = Table(
        header: [
            "dataset", "bplist", "contender", "peak RSS MB", "baseline MB", "decode peak MB", "x file size",
            "Hangar/peer",
        ],
        leftAligned: 3)
    var summary: [String] = []
    for name in names {
        let path = files.binaryPath(name)
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { continue }
        var multiples: [DecodeMemoryContender: Double] = [:]
        var rows: [(DecodeMemoryContender, [String])] = []
        for contender in DecodeMemoryContender.allCases {
            do {
                // Median of `runs` children each; the peak of a decode varies little between runs.
                var peaks: [Int] = []
                var baselines: [Int] = []
                for _ in 0..<runs {
                    peaks.append(try childPeakKilobytes(file: path, contender: contender, baseline: nil))
                    baselines.append(try childPeakKilobytes(file: path, contender: contender, baseline: tiny))
                }
                let peak = median(peaks)
                let baseline = median(baselines)
                let decodeBytes = Double(peak - baseline) * 1024
                multiples[contender] = decodeBytes / Double(size)
                rows.append(
                    (
                        contender,
                        [
                            contender.title, fixed(Double(peak) / 1024, 1), fixed(Double(baseline) / 1024, 1),
                            fixed(decodeBytes / 1e6, 1), fixed(decodeBytes / Double(size), 1) + "x",
                        ]
                    ))
            } catch {
                rows.append((contender, [contender.title, "n/a", "", "", "", ""]))
                summary.append("\(name), \(contender.title): failed: \(error)")
            }
        }
        for (index, (contender, cells)) in rows.enumerated() {
            var ratio = ""
            if contender != .hangar, let ours = multiples[.hangar], let theirs = multiples[contender] {
                ratio = fixed(theirs / ours, 2) + "x"
            }
            table.rows.append([index == 0 ? name : "", index == 0 ? megabytes(size) : ""] + cells + [ratio])
        }
        fflush(nil)
    }
    print(
        "\n== peak memory of a binary decode, in a child process (VmHWM; median of \(runs)) [memory] ==")
    print(table.render())
    print("  decode peak = the child's peak RSS minus its baseline's (same file read, tiny.bplist decoded instead);")
    print("  x file size = decode peak / the bplist's size; Hangar/peer = the peer's decode peak / ours (>1: we use")
    print("  less). Foundation decodes from a Data over the same buffer (no copy on our side).")
    for line in summary { print("  note: \(line)") }
}

func median(_ values: [Int]) -> Int {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}
