import Foundation
@_spi(Engine) import Hangar
import HangarEncryption
import PropertyList
import Testing

/// Encryption at rest, on every engine: sealed bodies, missing and wrong keys, tampering, rotation.
extension StoreBehaviour {
    /// Three distinct 32-byte keys.
    static var keys: [[UInt8]] { (1...3).map { seed in (0..<32).map { UInt8(truncatingIfNeeded: $0 * 7 + seed) } } }

    /// ``configuration()`` sealing with `key`, opening with `oldKeys` too.
    static func encrypted(_ key: [UInt8]?, oldKeys: [[UInt8]] = []) throws -> StoreConfiguration {
        var configuration = configuration()
        configuration.encryption = try key.map { try AESGCMEncryption(key: $0, oldKeys: oldKeys) }
        return configuration
    }

    func encryptedBodies() async throws {
        let key = Self.keys[0]
        let keyID = try AESGCMEncryption.keyID(of: key)
        try await withStore(try Self.encrypted(key)) { store in
            try await store.write { try await $0.save(Memo(title: "ORCHID-7731", body: "first"), key: "m") }
            try await store.write { try await $0.save(Memo(title: "ORCHID-7731", body: "second"), key: "m") }
            let (current, old) = try await store.read { transaction in
                (
                    try await transaction.document(in: Memo.collection, key: "m"),
                    try await transaction.document(in: Memo.collection, key: "m", revision: 1)
                )
            }
            for stored in [current, old] {
                #expect(stored?.keyID == keyID)
                #expect(stored.map { !Self.contains($0.body, "ORCHID-7731") } == true, "the stored body is sealed")
                #expect(try stored?.plaintextBody().count == (stored?.body.count ?? 0) - 28)
            }
            #expect(try await store.read { try await $0.load(Memo.self, key: "m")?.value.body } == "second")
            #expect(try await store.read { try await $0.load(Memo.self, key: "m", revision: 1)?.value.body } == "first")

            // No key, or another key: a typed error on reads, and a save over it writes nothing.
            for configuration in [try Self.encrypted(nil), try Self.encrypted(Self.keys[1])] {
                let other = try await reopen(store, configuration)
                await expectKeyUnavailable(keyID) {
                    _ = try await other.read { try await $0.load(Memo.self, key: "m") }
                }
                await expectKeyUnavailable(keyID) {
                    try await other.write { _ = try await $0.save(Memo(title: "overwrite"), key: "m") }
                }
                await close(other)
            }
            let after = try await store.read { try await $0.document(in: Memo.collection, key: "m") }
            #expect(after == current, "nothing was overwritten")
        }
    }

    func tamperedBodiesQuarantined() async throws {
        try await withStore(try Self.encrypted(Self.keys[0])) { store in
            try await store.write { transaction in
                for key in ["a", "b", "c"] { try await transaction.save(Memo(title: "title \(key)"), key: key) }
            }
            try await store.write { transaction in
                guard let a = try await transaction.document(in: Memo.collection, key: "a"),
                    let b = try await transaction.document(in: Memo.collection, key: "b")
                else { throw BehaviourFailure(description: "saved documents are missing") }
                // One flipped byte in a's ciphertext; a's body copied onto b (same key, another document).
                var flipped = a.body
                flipped[flipped.count / 2] ^= 0x01
                #expect(try await transaction.replaceBody(of: a, in: .current, with: flipped, keyID: a.keyID ?? ""))
                #expect(try await transaction.replaceBody(of: b, in: .current, with: a.body, keyID: a.keyID ?? ""))
            }
            for key in ["a", "b"] {
                do {
                    _ = try await store.read { try await $0.load(Memo.self, key: key) }
                    Issue.record("\(engine): a tampered body of \(key) was decoded")
                } catch let error as HangarError {
                    #expect(error.code == .undecodable)
                }
            }
            let batch = try await store.read { try await $0.documents(Memo.self) }
            #expect(batch.loaded.map(\.key) == ["c"])
            #expect(batch.quarantined.map(\.key) == ["a", "b"])
            // Rotating to another key leaves them as they are, and says so.
            let rotated = try await reopen(store, try Self.encrypted(Self.keys[1], oldKeys: [Self.keys[0]]))
            let report = try await rotated.rekey()
            await close(rotated)
            #expect(report.quarantined.map(\.key) == ["a", "b"])
            #expect(report.rekeyed == 1)
        }
    }

    func rotationUnderWriters() async throws {
        let (first, second) = (Self.keys[0], Self.keys[1])
        let secondID = try AESGCMEncryption.keyID(of: second)
        // A plaintext store with history, encrypted by a first rekey.
        let plain = try await makeStore(try Self.encrypted(nil))
        try await plain.write { transaction in
            for index in 0..<30 { try await transaction.save(Memo(title: "plain \(index)"), key: "k\(index)") }
        }
        try await plain.write { try await $0.save(Memo(title: "plain 0", body: "again"), key: "k0") }
        let sequence = try await plain.lastChangeSequence()
        let sealed = try await reopen(plain, try Self.encrypted(first))
        await close(plain)
        let initial = try await sealed.rekey(batchSize: 7)
        #expect((initial.rekeyed, initial.rekeyedRevisions) == (30, 1))
        #expect(try await sealed.lastChangeSequence() == sequence, "rekey records no change")
        await close(sealed)

        // Rotation to a second key while writers save.
        let rotated = try await makeRotated(from: sealed, to: second, old: first)
        let report = try await withThrowingTaskGroup(of: RekeyReport?.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for index in 0..<20 {
                        try await rotated.write { transaction in
                            try await transaction.save(Memo(title: "w\(writer)-\(index)"), key: "k\(index)")
                            try await transaction.save(Memo(title: "new"), key: "w\(writer)-\(index)")
                        }
                    }
                    return nil
                }
            }
            group.addTask { try await rotated.rekey(batchSize: 5) }
            var report: RekeyReport?
            for try await result in group { report = result ?? report }
            return report
        }
        #expect(report?.quarantined.isEmpty == true)
        let leftOver = try await rotated.write { transaction in
            (
                try await transaction.bodies(in: .current, notSealedWith: secondID, after: nil, limit: 1000),
                try await transaction.bodies(in: .history, notSealedWith: secondID, after: nil, limit: 1000)
            )
        }
        #expect(leftOver.0.isEmpty && leftOver.1.isEmpty, "no body is left under another key")
        // Every save is there and readable with the second key alone.
        let alone = try await reopen(rotated, try Self.encrypted(second))
        let batch = try await alone.read { try await $0.documents(Memo.self) }
        #expect(batch.quarantined.isEmpty)
        #expect(batch.loaded.count == 70)
        for writer in 0..<2 {
            for index in 0..<20 {
                let key = "w\(writer)-\(index)"
                #expect(batch.loaded.contains { $0.key == key }, "\(key) is missing")
            }
        }
        for index in 0..<20 {
            #expect(batch.loaded.first { $0.key == "k\(index)" }?.value.title.hasPrefix("w") == true)
        }
        await close(alone)
        await close(rotated)
    }

    func sealedExportAndImport() async throws {
        try await withStore(try Self.encrypted(Self.keys[0])) { store in
            let directory = FileManager.default.temporaryDirectory.path + "/hangar-sealed-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try await store.write { try await $0.save(Memo(title: "TULIP-4410"), key: "t") }
            let plainPaths = try await store.exportCollection(Memo.collection, to: directory + "/plain")
            let sealedPaths = try await store.exportCollection(Memo.collection, to: directory + "/sealed", sealed: true)
            let plainFile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plainPaths[0])))
            let sealedFile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: sealedPaths[0])))
            #expect(Self.contains(plainFile, "TULIP-4410"), "exports are plaintext unless asked")
            #expect(!Self.contains(sealedFile, "TULIP-4410"), "a sealed export keeps the body sealed")
            try await store.importFiles(sealedPaths, into: "copies")
            #expect(
                try await store.read { try await $0.load(Memo.self, key: "t", in: "copies")?.value.title }
                    == "TULIP-4410")
            let keyless = try await reopen(store, try Self.encrypted(Self.keys[2]))
            await expectKeyUnavailable(try AESGCMEncryption.keyID(of: Self.keys[0])) {
                try await keyless.importFiles(sealedPaths, into: "others")
            }
            #expect(try await keyless.read { try await $0.count(in: "others") } == 0)
            await close(keyless)
        }
    }

    /// A store on `store`'s database sealing with `key`, opening `old` too.
    private func makeRotated(from store: Engine, to key: [UInt8], old: [UInt8]) async throws -> Engine {
        try await reopen(store, try Self.encrypted(key, oldKeys: [old]))
    }

    /// Expects `body` to throw ``HangarError/keyUnavailable`` naming `keyID`.
    private func expectKeyUnavailable(_ keyID: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(engine): expected keyUnavailable")
        } catch let error as HangarError {
            #expect(error.code == .keyUnavailable, "\(error)")
            #expect(error.keyID == keyID)
        } catch {
            Issue.record("\(engine): \(error)")
        }
    }

    /// Whether `bytes` hold `text`'s UTF-8 bytes.
    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
}
