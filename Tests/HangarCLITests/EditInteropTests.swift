import Foundation
import HangarTestSupport
import PropertyList
import Testing

/// Files `hangar` edited, read by the real peers (CPython's `plistlib`, libplist's `plistutil`), and files they
/// wrote with unsorted keys, edited by `hangar`: each dictionary keeps its order both ways.
@Suite struct EditInteropTests {
    static let python3 = executable("python3")
    static let plistutil = executable("plistutil")

    static func executable(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let path = directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        if path == nil {
            FileHandle.standardError.write(
                Data("WARNING: \(name) not found: its edit interop tests are SKIPPED\n".utf8))
        }
        return path
    }

    /// Prints every dictionary's keys, pre-order, one dictionary per line (keys joined by `|`).
    static let pythonKeyOrders = """
        import plistlib, sys
        def walk(v):
            if isinstance(v, dict):
                print("|".join(v.keys()))
                for x in v.values(): walk(x)
            elif isinstance(v, list):
                for x in v: walk(x)
        walk(plistlib.load(open(sys.argv[1], "rb")))
        """

    static func keyOrders(_ value: PropertyList) -> String {
        switch value {
        case .array(let elements): elements.map(keyOrders).joined()
        case .dictionary(let entries):
            entries.keys.joined(separator: "|") + "\n" + entries.values.map(keyOrders).joined()
        default: ""
        }
    }

    @Test(.enabled(if: python3 != nil, "python3 is missing: plistlib interop is NOT tested"))
    func plistlibReadsAnEditedKeyedArchiveInItsOrder() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = try CLI.copy("apple-keyed-archive.bplist", to: directory)
        let python = try #require(Self.python3)
        let before = try ProcessRunner.run(python, ["-c", Self.pythonKeyOrders, path])
        #expect(try CLI.run(["replace", "$archiver", "-string", "HangarArchiver", path]).status == 0)
        #expect(try CLI.run(["insert", "$objects.1.added", "-integer", "5", path]).status == 0)
        let after = try ProcessRunner.run(python, ["-c", Self.pythonKeyOrders, path])
        #expect(after.status == 0, "\(after.stderr)")
        let expected = try #require(
            before.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) as [String]?)
        var lines = expected
        let objectOne = try #require(lines.firstIndex { $0.hasPrefix("pytype|") })
        lines[objectOne] += "|added"
        #expect(after.stdout == lines.joined(separator: "\n"))
        let value = try PropertyList(binary: CLI.bytes(path))
        #expect(value["$top"] == ["root": .uid(1)], "UIDs are kept")
        #expect(Self.keyOrders(value) == after.stdout)
    }

    @Test(.enabled(if: python3 != nil, "python3 is missing: plistlib interop is NOT tested"))
    func anUnsortedFilePlistlibWroteIsEditedInItsOrder() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let binary = directory + "/python.bplist"
        let xml = directory + "/python.plist"
        let writer = """
            import plistlib, sys
            value = {"zulu": 1, "alpha": {"yankee": True, "bravo": [1, {"x": 1, "c": 2}]}, "mike": "m"}
            plistlib.dump(value, open(sys.argv[1], "wb"), fmt=plistlib.FMT_BINARY, sort_keys=False)
            plistlib.dump(value, open(sys.argv[2], "wb"), fmt=plistlib.FMT_XML, sort_keys=False)
            """
        let written = try ProcessRunner.run(try #require(Self.python3), ["-c", writer, binary, xml])
        #expect(written.status == 0, "\(written.stderr)")
        for path in [binary, xml] {
            #expect(try CLI.run(["replace", "alpha.bravo.1.x", "-integer", "9", path]).status == 0)
            #expect(try CLI.run(["insert", "echo", "-bool", "NO", path]).status == 0)
            let read = try ProcessRunner.run(try #require(Self.python3), ["-c", Self.pythonKeyOrders, path])
            #expect(read.stdout == "zulu|alpha|mike|echo\nyankee|bravo\nx|c\n", "\(path)")
        }
        let xmlText = String(decoding: CLI.bytes(xml), as: UTF8.self)
        #expect(xmlText.contains("<key>x</key>\n\t\t\t\t<integer>9</integer>"))
    }

    @Test(.enabled(if: plistutil != nil, "plistutil is missing: libplist interop is NOT tested"))
    func plistutilReadsEditedFilesInTheirOrderAndHangarReadsItsOutputInOrder() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/Entitlements.plist"
        try FileManager.default.copyItem(atPath: CLI.corpus + "/" + EditTests.entitlements, toPath: path)
        #expect(
            try CLI.run([
                "insert", "com\\.example\\.added", "-xml", "<dict><key>z</key><true/><key>a</key><false/></dict>", path,
            ]).status == 0)
        let converted = directory + "/converted.bplist"
        let tool = try #require(Self.plistutil)
        let run = try ProcessRunner.run(tool, ["-i", path, "-o", converted, "-f", "bin"])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = try PropertyList(xml: CLI.bytes(path))
        let theirs = try PropertyList(binary: CLI.bytes(converted))
        #expect(theirs == ours)
        #expect(Self.keyOrders(theirs) == Self.keyOrders(ours))
        #expect(
            Self.keyOrders(ours)
                == "com.apple.security.app-sandbox|com.apple.security.application-groups|"
                + "com.apple.developer.networking.networkextension|com.example.added\nz|a\n")
        // And back: hangar converts libplist's binary to XML byte for byte what the edit wrote.
        let back = try CLI.run(["convert", "xml1", converted, "-o", "-"])
        #expect(back.stdoutBytes == CLI.bytes(path))
    }
}
