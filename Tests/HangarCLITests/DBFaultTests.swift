import Foundation
import HangarTestSupport
import Testing

/// `hangar` on a read-only store and on a full disk (real tmpfs mounts): one-line errors, the read verbs
/// working on a read-only store, and destinations never left half-written.
@Suite(.serialized) struct DBFaultTests {
    private static let secret = "ZEBRA-SECRET-7731"

    private static func envelope(_ text: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>majorVersion</key><integer>1</integer><key>minorVersion</key><integer>0</integer>
            <key>text</key><string>\(text)</string></dict></plist>
            """.utf8)
    }

    @Test func readVerbsWorkOnAReadOnlyStoreAndPutFailsInOneLine() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 2) else { return }
        defer { fileSystem.unmount() }
        let scratch = try CLI.temporaryDirectory()
        defer { CLI.remove(scratch) }
        let file = scratch + "/doc.plist"
        try Data(Self.envelope(Self.secret)).write(to: URL(fileURLWithPath: file))
        let db = fileSystem.path + "/store.sqlite"
        #expect(try CLI.run(["db", "put", "--db", db, "notes", "a", file]).status == 0)
        #expect(try CLI.run(["db", "put", "--db", db, "notes", "a", file]).status == 0)
        try fileSystem.remount(readOnly: true)

        let put = try CLI.run(["db", "put", "--db", db, "notes", "b", file])
        #expect(put.status == 1)
        #expect(put.stderr.hasPrefix(db + ": "), "\(put.stderr)")
        #expect(put.stderr.split(separator: "\n").count == 1, "\(put.stderr)")
        #expect(put.stderr.contains("read-only"), "\(put.stderr)")
        #expect(!put.stderr.contains(Self.secret))

        let reads: [[String]] = [
            ["ls", "--db", db, "notes"], ["get", "--db", db, "notes", "a"], ["history", "--db", db, "notes", "a"],
            ["export", "--db", db, "notes", scratch + "/export"], ["check", "--db", db], ["changes", "--db", db],
            ["backup", "--db", db, scratch + "/backup.sqlite"],
        ]
        for arguments in reads {
            let result = try CLI.run(["db"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    @Test func convertAndBackupOnAFullDiskLeaveTheOldFileAndNoTemporaryFile() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 2) else { return }
        defer { fileSystem.unmount() }
        let scratch = try CLI.temporaryDirectory()
        defer { CLI.remove(scratch) }
        let big = scratch + "/big.plist"
        try Data(Self.envelope(String(repeating: Self.secret, count: 20_000))).write(to: URL(fileURLWithPath: big))
        let db = scratch + "/store.sqlite"
        #expect(try CLI.run(["db", "put", "--db", db, "notes", "a", big]).status == 0)
        let old = Array("old".utf8)
        for name in ["converted.plist", "backup.sqlite"] {
            try Data(old).write(to: URL(fileURLWithPath: fileSystem.path + "/" + name))
        }
        fileSystem.fill()
        let convert = try CLI.run(["convert", "binary1", big, "-o", fileSystem.path + "/converted.plist"])
        let backup = try CLI.run(["db", "backup", "--db", db, fileSystem.path + "/backup.sqlite"])
        for result in [convert, backup] {
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!result.stderr.contains(Self.secret))
        }
        for name in ["converted.plist", "backup.sqlite"] {
            #expect(CLI.bytes(fileSystem.path + "/" + name) == old, "\(name)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: fileSystem.path).sorted()
        #expect(left == ["backup.sqlite", "converted.plist", "filler"])
    }
}
