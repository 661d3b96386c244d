import Foundation
import Hangar
import HangarSQLite
import PilotModels
import PropertyList
import Testing

/// `CollectionOptions.model`: every envelope saved into the collection must read as the model, whichever way it
/// comes in, and collection options are found by the name's bytes.
@Suite struct DocumentModelTests {
    static func store() throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = .documents(of: Pilot.self, history: .keepLast(2))
        return try SQLiteStore.inMemory(store: configuration)
    }

    @Test func anEnvelopeTheModelRefusesIsNotSaved() async throws {
        let store = try Self.store()
        let refused: [(PropertyList, HangarError.Code)] = [
            (["majorVersion": 2, "minorVersion": 0, "airplanes": []], .missingKey),
            (["majorVersion": 2, "minorVersion": 0, "name": "X", "airplanes": "none"], .typeMismatch),
            (
                [
                    "majorVersion": 2, "minorVersion": 0, "name": "X",
                    "airplanes": [["class": "NSObject", "registrationNumber": "N1"]],
                ], .disallowedClassTag
            ),
        ]
        for (envelope, code) in refused {
            do {
                _ = try await store.write { try await $0.save(envelope: envelope, key: "p", in: Pilot.collection) }
                Issue.record("saved \(envelope)")
            } catch let error as HangarError {
                #expect(error.code == code || error.code == .unknownClassTag, "\(error)")
                #expect(error.collection == Pilot.collection && error.key == "p", "\(error)")
            }
        }
        let left = try await store.document(in: Pilot.collection, key: "p")
        #expect(left == nil)
        // An older major is checked as it will be read: migrated first.
        let v1: PropertyList = ["majorVersion": 1, "minorVersion": 0, "name": "Ada", "airplanes": []]
        let revision = try await store.write { try await $0.save(envelope: v1, key: "ada", in: Pilot.collection) }
        #expect(revision == 1)
        // A collection without a model keeps taking any envelope.
        _ = try await store.write {
            try await $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "x", in: "notes")
        }
        await store.close()
    }

    @Test func optionsAreFoundByTheNamesBytes() {
        var configuration = StoreConfiguration()
        configuration.collections["caf\u{E9}"] = CollectionOptions(history: .keepNone)
        #expect(configuration.options(for: "caf\u{E9}").history == .keepNone)
        #expect(configuration.options(for: "cafe\u{301}").history == .keepAll)
    }
}
