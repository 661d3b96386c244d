import Foundation
import Hangar
import HangarTestSupport
import Testing

/// `hangar db sync` takes the store options every `db` verb takes: a device store that encrypts at rest syncs with
/// `--key-file`, stays sealed on disk, and without its key fails in one line having changed nothing.
@Suite struct PilotsSyncStoreOptionTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func anEncryptedDeviceStoreSyncsWithItsKeyFile() async throws {
        guard let hangar = PilotsSyncTests.hangar else {
            print(
                "SKIPPED anEncryptedDeviceStoreSyncsWithItsKeyFile: build the root package first (no \(repositoryRoot)/.build/debug/hangar)"
            )
            return
        }
        let server = try ServerProcess(["--db", directory.path + "/server.sqlite"], directory: directory.path)
        defer { server.terminate() }
        let key = directory.path + "/device.key"
        try Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }).write(to: URL(fileURLWithPath: key))
        let envelope = directory.path + "/ada.plist"
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>majorVersion</key><integer>1</integer>
            <key>minorVersion</key><integer>0</integer><key>name</key><string>QUINCE-4417</string></dict></plist>
            """.utf8
        ).write(to: URL(fileURLWithPath: envelope))
        let device = directory.path + "/device.sqlite"
        let sealed = ["--db", device, "--key-file", key]
        let put = try ProcessRunner.run(hangar, ["db", "put"] + sealed + ["pilots", "ada", envelope])
        #expect(put.status == 0, "\(put.stderr)")

        // Without the key: one line, exit 1, nothing sent and nothing written.
        let keyless = try ProcessRunner.run(
            hangar, ["db", "sync", "--db", device, "--remote", server.baseURL, "pilots"])
        #expect(keyless.status == 1 && keyless.stdout.isEmpty)
        #expect(keyless.stderr.hasPrefix("hangar: ") && keyless.stderr.split(separator: "\n").count == 1)
        #expect(try HTTP.send("GET", server.url("/pilots/ada")).status == 404, "nothing reached the server")

        let synced = try ProcessRunner.run(hangar, ["db", "sync"] + sealed + ["--remote", server.baseURL, "pilots"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout == "synced pilots: pulled 0, pushed 1, conflicts 0\n")
        let onServer = try HTTP.send("GET", server.url("/pilots/ada"))
        #expect(onServer.status == 200 && onServer.text.contains("QUINCE-4417"), "the server holds the plaintext")

        // A second device with its own key pulls it, sealed under that key on its disk.
        let otherKey = directory.path + "/other.key"
        try Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 11 + 5) }).write(to: URL(fileURLWithPath: otherKey))
        let other = ["--db", directory.path + "/other.sqlite", "--key-file", otherKey]
        let pulled = try ProcessRunner.run(hangar, ["db", "sync"] + other + ["--remote", server.baseURL, "pilots"])
        #expect(pulled.stdout == "synced pilots: pulled 1, pushed 0, conflicts 0\n", "\(pulled.stderr)")
        for file in [device, directory.path + "/other.sqlite"] {
            for path in [file, file + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
                #expect(!String(decoding: bytes, as: UTF8.self).contains("QUINCE-4417"), "\(path) holds plaintext")
            }
        }
        let read = try ProcessRunner.run(hangar, ["db", "get"] + other + ["pilots", "ada"])
        #expect(read.status == 0 && read.stdout.contains("QUINCE-4417"), "\(read.stderr)")
    }
}
