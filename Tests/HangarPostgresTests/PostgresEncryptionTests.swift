import Foundation
import Hangar
import HangarEncryption
import HangarTestSupport
import PostgresNIO
import Testing

@testable import HangarPostgres

/// Encryption at rest on PostgreSQL: what the table rows' `bytea` hold, and a body changed with raw SQL.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresEncryptionTests {
    private static let secrets = ["PANGOLIN-6620", "first revision AXOLOTL-1187"]

    private func withEncryptedStore(_ label: String, _ body: (PostgresStore) async throws -> Void) async throws {
        let configuration = try testConfiguration(label) { configuration in
            configuration.encryption = try? AESGCMEncryption(key: (0..<32).map { UInt8($0 * 5 + 2) })
        }
        let store = try await PostgresStore(configuration: configuration)
        do {
            try await body(store)
        } catch {
            await store.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await store.close()
        try await dropSchema(of: configuration)
    }

    @Test func rowsHoldNoPlaintext() async throws {
        try await withEncryptedStore("sealedrows") { store in
            for text in Self.secrets.reversed() {
                try await store.write { transaction in
                    try await transaction.save(
                        envelope: ["majorVersion": 1, "minorVersion": 0, "text": .string(text)], key: "n", in: "notes")
                }
            }
            let rows = try await store.engine.withTransaction(.write) { transaction in
                let s = transaction.sql.quotedSchema
                return try await transaction.query(
                    "SELECT body, key_id FROM \(s).documents UNION ALL SELECT body, key_id FROM \(s).history"
                ).map { row in
                    let (body, keyID) = try row.decode((ByteBuffer, String?).self)
                    return (PostgresBytes.bytes(body), keyID)
                }
            }
            #expect(rows.count == 2)
            for (body, keyID) in rows {
                #expect(keyID == store.configuration.encryption?.currentKeyID)
                for secret in Self.secrets {
                    #expect(Data(body).range(of: Data(secret.utf8)) == nil, "a row holds \(secret) in plaintext")
                }
            }
            let loaded = try await store.read { try await $0.document(in: "notes", key: "n", revision: 1) }
            #expect(try loaded?.envelope().dictionaryValue?["text"]?.stringValue == Self.secrets[1])
        }
    }

    @Test func bodyChangedWithRawSQLIsQuarantined() async throws {
        try await withEncryptedStore("tampered") { store in
            try await store.write { transaction in
                for key in ["a", "b"] {
                    try await transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: key, in: "notes")
                }
            }
            try await store.engine.withTransaction(.write) { transaction in
                try await transaction.execute(
                    "UPDATE \(transaction.sql.quotedSchema).documents "
                        + "SET body = set_byte(body, 20, get_byte(body, 20) # 1) WHERE key = 'a'")
            }
            let error = await #expect(throws: HangarError.self) {
                _ = try await store.read { try await $0.document(in: "notes", key: "a")?.envelope() }
            }
            #expect(error?.code == .undecodable)
            let documents = try await store.read { try await $0.documents(in: "notes") }
            #expect(documents.map { (try? $0.envelope()) != nil } == [false, true])
        }
    }
}
