import Foundation
import Hangar
import HangarEncryption
import HangarTestSupport
import Testing

@testable import HangarSQLite

/// Encryption at rest on the SQLite file itself: what the file and its write-ahead log hold, and a body changed
/// behind the store's back with raw SQL.
@Suite struct SQLiteEncryptionAtRestTests {
    private static let key: [UInt8] = (0..<32).map { UInt8($0 * 3 + 1) }
    private static let secrets = ["CASSOWARY-9182", "QUETZAL-4471", "first revision NARWHAL-3306"]

    private func store(at path: String) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.encryption = try AESGCMEncryption(key: Self.key)
        configuration.collections["notes"] = CollectionOptions(history: .keepAll)
        return try SQLiteStore(path: path, store: configuration)
    }

    @Test func fileAndLogHoldNoPlaintext() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let store = try store(at: path)
        try store.write { transaction in
            try transaction.save(
                envelope: ["majorVersion": 1, "minorVersion": 0, "text": .string(Self.secrets[2])], key: "n",
                in: "notes")
        }
        try store.write { transaction in
            try transaction.save(
                envelope: [
                    "majorVersion": 1, "minorVersion": 0, "text": .string(Self.secrets[0]),
                    "more": .string(Self.secrets[1]),
                ], key: "n", in: "notes")
        }
        #expect(try store.read { try $0.history(in: "notes", key: "n") }.count == 2)
        var all = Data()
        for file in [path, path + "-wal"] {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            all += data
            for secret in Self.secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(file) holds \(secret) in plaintext")
            }
        }
        #expect(all.range(of: Data("notes".utf8)) != nil, "the bytes were read: the collection stays visible")
    }

    @Test func bodyChangedWithRawSQLIsQuarantined() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let store = try store(at: path)
        try store.write { transaction in
            for key in ["a", "b"] {
                try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: key, in: "notes")
            }
        }
        // One byte of a's ciphertext flipped behind the store's back (python3 is an interop peer CI installs).
        let script =
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            + "b = bytearray(c.execute(\"SELECT body FROM documents WHERE key = 'a'\").fetchone()[0]); "
            + "b[20] ^= 1; c.execute(\"UPDATE documents SET body = ? WHERE key = 'a'\", (bytes(b),)); c.commit()"
        let damage = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script, path])
        try #require(damage.status == 0, "\(damage.stderr)")
        let error = #expect(throws: HangarError.self) {
            _ = try store.read { try $0.document(in: "notes", key: "a")?.envelope() }
        }
        #expect(error?.code == .undecodable)
        let documents = try store.read { try $0.documents(in: "notes") }
        #expect(documents.map { (try? $0.envelope()) != nil } == [false, true])
    }
}

/// An encryption written outside Hangar can only throw a `HangarError` without a collection or key: the store
/// names the document it was sealing or opening.
@Suite struct UserEncryptionErrorTests {
    /// XOR with one byte; refuses to open bytes whose last byte is 0xFF (standing for a failed authentication).
    struct ToyEncryption: DocumentEncryption {
        var currentKeyID: String { "toy" }
        var failsToSeal = false

        func canOpen(keyID: String) -> Bool { keyID == "toy" }

        func seal(_ body: [UInt8], context: EncryptionContext) throws(HangarError) -> [UInt8] {
            if failsToSeal { throw HangarError(.invalidConfiguration, "the toy key is not loaded") }
            return body.map { $0 ^ 0x5A } + [0]
        }

        func open(_ sealed: [UInt8], keyID: String, context: EncryptionContext) throws(HangarError) -> [UInt8] {
            guard sealed.last == 0 else { throw HangarError(.undecodable, "the sealed body failed authentication") }
            return sealed.dropLast().map { $0 ^ 0x5A }
        }
    }

    @Test func aUserEncryptionsErrorNamesTheDocument() throws {
        var configuration = noteConfiguration()
        configuration.encryption = ToyEncryption()
        let path = try temporaryDirectory() + "/store.sqlite"
        let store = try SQLiteStore(path: path, store: configuration)
        try store.write { try $0.save(Note(title: "t", body: "b"), key: "k") }
        #expect(try store.read { try $0.load(Note.self, key: "k")?.value.body } == "b")
        // The stored body's last byte, turned into a failure to open.
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1000)
        try raw.execute("UPDATE documents SET body = CAST(body || x'FF' AS BLOB) WHERE key = 'k'")
        do {
            _ = try store.read { try $0.load(Note.self, key: "k") }
            Issue.record("a body that fails to open was read")
        } catch let error as HangarError {
            #expect(error.code == .undecodable)
            #expect(error.collection == "notes" && error.key == "k", "\(error)")
            #expect(error.description.hasPrefix("notes/k: "), "\(error)")
        }
        var failing = configuration
        failing.encryption = ToyEncryption(failsToSeal: true)
        let sealing = try SQLiteStore(path: path, store: failing)
        do {
            try sealing.write { try $0.save(Note(title: "u", body: "c"), key: "u") }
            Issue.record("a save whose sealing failed went through")
        } catch let error as HangarError {
            #expect(error.code == .invalidConfiguration && error.collection == "notes" && error.key == "u", "\(error)")
        }
    }
}
