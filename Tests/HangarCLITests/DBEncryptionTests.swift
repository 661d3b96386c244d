import Foundation
@_spi(Engine) import Hangar
import HangarEncryption
@_spi(Engine) import HangarSQLite
import HangarTestSupport
import Testing

/// `hangar db` with encrypted stores: key files, `rekey`, sealed exports, kill -9 during rekey.
@Suite struct DBEncryptionTests {
    /// A folder with two key files (`k1`, `k2`), a 31-byte one (`short`) and an envelope file with a distinctive
    /// string (`doc.plist`).
    private func setUp() throws -> String {
        let directory = try CLI.temporaryDirectory()
        for (name, size, seed) in [("k1", 32, 1), ("k2", 32, 2), ("short", 31, 3)] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 13 + seed) }
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        let envelope = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>majorVersion</key><integer>1</integer>
            <key>minorVersion</key><integer>0</integer><key>name</key><string>MARIGOLD-5521</string></dict></plist>
            """
        try Data(envelope.utf8).write(to: URL(fileURLWithPath: directory + "/doc.plist"))
        return directory
    }

    private func keyID(_ path: String) throws -> String {
        try AESGCMEncryption.keyID(of: try AESGCMEncryption.readKeyFile(path))
    }

    @Test func keyFileAndEnvironment() throws {
        let directory = try setUp()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        let put = try CLI.run([
            "db", "put", "--db", db, "--key-file", directory + "/k1", "pilots", "ada", directory + "/doc.plist",
        ])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(!CLI.bytes(db).isEmpty)
        for file in [db, db + "-wal"] {
            #expect(
                !String(decoding: CLI.bytes(file), as: UTF8.self).contains("MARIGOLD-5521"), "\(file) holds plaintext")
        }
        let viaEnvironment = try CLI.runShell(
            "HANGAR_KEY_FILE='\(directory)/k1' '\(CLI.executable)' db get --db '\(db)' pilots ada")
        #expect(viaEnvironment.status == 0)
        #expect(viaEnvironment.stdout.contains("MARIGOLD-5521"))
        // No key, another key: a one-line error naming the key id, nothing written.
        let k1 = try keyID(directory + "/k1")
        for arguments in [[String](), ["--key-file", directory + "/k2"]] {
            let get = try CLI.run(["db", "get", "--db", db] + arguments + ["pilots", "ada"])
            #expect(get.status == 1)
            #expect(get.stderr.contains("sealed with key \(k1)"), "\(get.stderr)")
            let overwrite = try CLI.run(
                ["db", "put", "--db", db] + arguments + ["pilots", "ada", directory + "/doc.plist"])
            #expect(overwrite.status == 1)
        }
        let history = try CLI.run(["db", "history", "--db", db, "--key-file", directory + "/k1", "pilots", "ada"])
        #expect(history.stdout.split(separator: "\n").count == 1, "nothing was overwritten")
        // A key file of another size is refused in one line, and the key is never repeated.
        let short = try CLI.run(["db", "get", "--db", db, "--key-file", directory + "/short", "pilots", "ada"])
        #expect(short.status == 1)
        #expect(
            short.stderr
                == "\(directory)/short: The key file \(directory)/short holds 31 bytes; a key file holds exactly 32 raw bytes\n"
        )
        let missing = try CLI.run(["db", "get", "--db", db, "--key-file", directory + "/none", "pilots", "ada"])
        #expect(missing.status == 1)
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test func rekeyAndSealedExport() throws {
        let directory = try setUp()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        for _ in 0..<2 {
            _ = try CLI.run([
                "db", "put", "--db", db, "--key-file", directory + "/k1", "pilots", "ada", directory + "/doc.plist",
            ])
        }
        let rekey = try CLI.run([
            "db", "rekey", "--db", db, "--key-file", directory + "/k2", "--old-key-file", directory + "/k1",
        ])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout == "rekeyed 1 documents and 1 revisions\n")
        let old = try CLI.run(["db", "get", "--db", db, "--key-file", directory + "/k1", "pilots", "ada"])
        #expect(old.status == 1, "the old key alone no longer reads it")
        let export = try CLI.run([
            "db", "export", "--db", db, "--key-file", directory + "/k2", "--encrypted", "pilots", directory + "/out",
        ])
        #expect(export.status == 0)
        #expect(!String(decoding: CLI.bytes(directory + "/out/ada.plist"), as: UTF8.self).contains("MARIGOLD-5521"))
        let copy = directory + "/copy.sqlite"
        let imported = try CLI.run([
            "db", "import", "--db", copy, "--key-file", directory + "/k2", "pilots", directory + "/out/ada.plist",
        ])
        #expect(imported.stdout == "ada 1\n")
        let read = try CLI.run(["db", "get", "--db", copy, "--key-file", directory + "/k2", "pilots", "ada"])
        #expect(read.stdout.contains("MARIGOLD-5521"))
        let refused = try CLI.run([
            "db", "import", "--db", directory + "/other.sqlite", "pilots", directory + "/out/ada.plist",
        ])
        #expect(refused.status == 1)
    }

    /// kill -9 during `db rekey`, then `db rekey` again: every body ends under the new key, every document reads.
    @Test func rekeyKilledThenFinished() async throws {
        let directory = try setUp()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        var configuration = StoreConfiguration()
        configuration.encryption = try AESGCMEncryption(key: try AESGCMEncryption.readKeyFile(directory + "/k1"))
        let store = try SQLiteStore(path: db, store: configuration)
        try await store.write { transaction in
            for index in 0..<3_000 {
                try transaction.save(
                    envelope: ["majorVersion": 1, "minorVersion": 0, "n": .integer(.init(index))], key: "p\(index)",
                    in: "pilots")
            }
        }
        let arguments = [
            "db", "rekey", "--db", db, "--key-file", directory + "/k2", "--old-key-file", directory + "/k1",
            "--batch-size", "1",
        ]
        let child = try ChildProcess(arguments, stderrPath: directory + "/stderr", executable: CLI.executable)
        // Watched and killed from a thread of its own: a poll that waits for a cooperative thread may come too late.
        let status = await offThread {
            let deadline = Date(timeIntervalSinceNow: 30)
            while Date() < deadline,
                !String(decoding: CLI.bytes(directory + "/stderr"), as: UTF8.self).contains("rekeyed 20\n")
            {
                Thread.sleep(forTimeInterval: 0.001)
            }
            return child.killAndWait()
        }
        #expect(ChildProcess.wasKilled(status), "rekey finished before it was killed")
        let rerun = try CLI.run(arguments)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let newID = try keyID(directory + "/k2")
        let summary = rerun.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("rekeyed ") && summary.hasSuffix(" documents and 0 revisions"), "\(summary)")
        var reopened = StoreConfiguration()
        reopened.encryption = try AESGCMEncryption(key: try AESGCMEncryption.readKeyFile(directory + "/k2"))
        let after = try SQLiteStore(path: db, store: reopened)
        let left = try await after.write {
            try $0.bodies(in: .current, notSealedWith: newID, after: nil, limit: 10_000)
        }
        #expect(left.isEmpty)
        let documents = try await after.read { try $0.documents(in: "pilots") }
        #expect(documents.count == 3_000)
        #expect(documents.allSatisfy { (try? $0.envelope()) != nil && $0.revision == 1 })
    }
}
