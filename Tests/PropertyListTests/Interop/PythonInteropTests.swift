import Foundation
import HangarTestSupport
import Testing

@testable import PropertyList

/// Our binary output loads in CPython's `plistlib` as the same value, and `plistlib`'s output loads in ours.
@Suite(.enabled(if: Peers.python3 != nil, "python3 is missing: plistlib interop is NOT tested"))
struct PythonInteropTests {
    private let dumpScript = repositoryRoot + "/Scripts/canonical-dump.py"

    @Test func plistlibReadsOurBinaryOutput() throws {
        let directory = try FileSystem.temporaryDirectory()
        var paths: [String] = []
        var expected: [String] = []
        for seed in UInt64(1)...60 {
            // Whole-second dates: plistlib holds microseconds, so a millisecond fraction may not survive.
            var random = RandomValues(seed: seed, xmlSafe: true)
            let value = random.value()
            let path = "\(directory)/\(seed).bplist"
            try FileSystem.write(try value.encoded(as: .binary), to: path)
            paths.append(path)
            expected.append(CanonicalDump.render(value))
        }
        let output = try Peers.run(try #require(Peers.python3), [dumpScript] + paths)
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in expected.enumerated() {
            #expect(lines.indices.contains(index) && lines[index] == line, "seed \(index + 1)")
        }
    }

    @Test func weReadPlistlibBinaryOutput() throws {
        let directory = try FileSystem.temporaryDirectory()
        // plistlib writes integers up to 2^64−1 as 16 bytes, negatives as 8, UTF-16 for non-ASCII,
        // and shares equal scalars; it also writes aliased containers once.
        let script = """
            import plistlib, datetime, sys
            shared = [1, 2, 3]
            value = {"big": 2**64 - 1, "min": -2**63, "neg": -5, "uni": "Mässig \\U0001F680", "real": 0.1,
                     "date": datetime.datetime(2004, 10, 26, 10, 33, 33), "data": bytes(range(256)),
                     "nested": {"a": shared, "b": shared}, "list": ["x"] * 20, "t": True, "f": False,
                     "empty": {}, "emptyList": []}
            with open(sys.argv[1], "wb") as f:
                plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)
            """
        let path = "\(directory)/from-python.bplist"
        let output = try Peers.run(try #require(Peers.python3), ["-c", script, path])
        #expect(output.status == 0, "\(output.stderr)")
        let value = try PropertyList(binary: Corpus.bytes(path))
        let expected: PropertyList = [
            "big": .integer(.init(UInt64.max)), "min": .integer(.init(Int64.min)), "neg": -5,
            "uni": "Mässig \u{1F680}", "real": 0.1, "date": .date(120_479_613), "data": .data(Array(0...255)),
            "nested": ["a": [1, 2, 3], "b": [1, 2, 3]], "list": .array(Array(repeating: "x", count: 20)),
            "t": true, "f": false, "empty": [:], "emptyList": [],
        ]
        #expect(value == expected)
    }
}

/// libplist's `plistutil` reads our binary output and writes its own, which we read back equal.
@Suite(.enabled(if: Peers.plistutil != nil, "plistutil (libplist-utils) is missing: libplist interop is NOT tested"))
struct LibplistInteropTests {
    @Test func libplistRoundTripsOurBinaryOutput() throws {
        let directory = try FileSystem.temporaryDirectory()
        for seed in UInt64(1)...40 {
            var random = RandomValues(seed: seed)
            // libplist has no NaN-safe real equality in its writer and keeps dates as doubles: all fine in binary.
            let value = random.value()
            let ours = "\(directory)/ours-\(seed).bplist"
            let theirs = "\(directory)/theirs-\(seed).bplist"
            try FileSystem.write(try value.encoded(as: .binary), to: ours)
            let output = try Peers.run(try #require(Peers.plistutil), ["-i", ours, "-o", theirs, "-f", "bin"])
            #expect(output.status == 0, "seed \(seed): \(output.stderr)")
            #expect(try PropertyList(binary: Corpus.bytes(theirs)) == value, "seed \(seed)")
        }
    }
}
