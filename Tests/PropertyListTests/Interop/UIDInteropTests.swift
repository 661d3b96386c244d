import Foundation
import HangarTestSupport
import Testing

@testable import PropertyList

/// UIDs between Hangar and CPython's `plistlib.UID`, both ways, at every width CF writes.
@Suite(.enabled(if: Peers.python3 != nil, "python3 is missing: plistlib UID interop is NOT tested"))
struct PlistlibUIDInteropTests {
    private static let values: [UInt32] = [0, 7, 255, 256, 65535, 65536, .max]

    @Test func plistlibReadsOurUIDs() throws {
        let directory = try FileSystem.temporaryDirectory()
        let path = directory + "/ours.bplist"
        let value: PropertyList = ["uids": .array(Self.values.map { .uid($0) }), "integer": 7]
        try FileSystem.write(try value.encoded(as: .binary), to: path)
        let script = """
            import plistlib, sys
            value = plistlib.load(open(sys.argv[1], "rb"))
            assert all(isinstance(u, plistlib.UID) for u in value["uids"]), value
            assert not isinstance(value["integer"], plistlib.UID)
            print(",".join(str(u.data) for u in value["uids"]))
            """
        let output = try Peers.run(try #require(Peers.python3), ["-c", script, path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == Self.values.map(String.init).joined(separator: ",") + "\n")
    }

    @Test func weReadPlistlibUIDs() throws {
        let directory = try FileSystem.temporaryDirectory()
        let path = directory + "/theirs.bplist"
        // plistlib writes 1, 2, 4 or 8 bytes (0x80, 0x81, 0x83, 0x87) and keeps one object per UID instance.
        let script = """
            import plistlib, sys
            u = plistlib.UID(3)
            value = {"uids": [plistlib.UID(n) for n in (0, 7, 255, 256, 65535, 65536, 2**32 - 1)],
                     "same": [u, u], "integer": 7}
            with open(sys.argv[1], "wb") as f:
                plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)
            """
        let output = try Peers.run(try #require(Peers.python3), ["-c", script, path])
        #expect(output.status == 0, "\(output.stderr)")
        let value = try PropertyList(binary: Corpus.bytes(path))
        let expected: PropertyList = [
            "uids": .array(Self.values.map { .uid($0) }), "same": [.uid(3), .uid(3)], "integer": 7,
        ]
        #expect(value == expected)
    }

    /// `plistlib` rewrites each corpus archive to exactly the bytes we write: the same object order, uniquing
    /// (one object per UID), widths and trailer.
    @Test(arguments: ["apple-keyed-archive.bplist", "rust-nskeyedarchiver.bplist"])
    func ourKeyedArchiveIsPlistlibsByteForByte(name: String) throws {
        let directory = try FileSystem.temporaryDirectory()
        let source = Corpus.directory + "/" + name
        let theirs = directory + "/plistlib.bplist"
        let script = """
            import plistlib, sys
            value = plistlib.load(open(sys.argv[1], "rb"))
            with open(sys.argv[2], "wb") as f:
                plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)
            """
        let output = try Peers.run(try #require(Peers.python3), ["-c", script, source, theirs])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try PropertyList(binary: Corpus.bytes(source)).encoded(as: .binary) == Corpus.bytes(theirs))
    }

    @Test func aPlistlibUIDAboveTheRangeIsRefused() throws {
        let directory = try FileSystem.temporaryDirectory()
        let path = directory + "/wide.bplist"
        let script = """
            import plistlib, sys
            with open(sys.argv[1], "wb") as f:
                plistlib.dump([plistlib.UID(2**32)], f, fmt=plistlib.FMT_BINARY)
            """
        let output = try Peers.run(try #require(Peers.python3), ["-c", script, path])
        #expect(output.status == 0, "\(output.stderr)")
        do {
            _ = try PropertyList(binary: Corpus.bytes(path))
            Issue.record("a UID of 2^32 was read; CF and libplist refuse it")
        } catch {
            #expect(error.reason == .numberOutOfRange)
        }
    }
}

/// UIDs through libplist's `plistutil`: binary to binary, and binary to XML (its `CF$UID` dictionary).
@Suite(
    .enabled(if: Peers.plistutil != nil, "plistutil (libplist-utils) is missing: libplist UID interop is NOT tested"))
struct LibplistUIDInteropTests {
    @Test func plistutilKeepsOurUIDs() throws {
        let directory = try FileSystem.temporaryDirectory()
        for seed in UInt64(1)...30 {
            var random = RandomValues(seed: seed, xmlSafe: true, uids: true)
            let value = random.value()
            let ours = "\(directory)/ours-\(seed).bplist"
            try FileSystem.write(try value.encoded(as: .binary), to: ours)
            let binary = "\(directory)/theirs-\(seed).bplist"
            let output = try Peers.run(try #require(Peers.plistutil), ["-i", ours, "-o", binary, "-f", "bin"])
            #expect(output.status == 0, "seed \(seed): \(output.stderr)")
            #expect(try PropertyList(binary: Corpus.bytes(binary)) == value, "seed \(seed)")
        }
    }

    @Test func plistutilsXMLReadsBackAsUIDs() throws {
        let directory = try FileSystem.temporaryDirectory()
        let archive = Corpus.directory + "/apple-keyed-archive.bplist"
        let xml = directory + "/archive.xml"
        let output = try Peers.run(try #require(Peers.plistutil), ["-i", archive, "-o", xml, "-f", "xml"])
        #expect(output.status == 0, "\(output.stderr)")
        let value = try PropertyList(xml: Corpus.bytes(xml))
        #expect(value == (try PropertyList(binary: Corpus.bytes(archive))))
        #expect(value["$top"]?["root"] == .uid(1))
    }
}
