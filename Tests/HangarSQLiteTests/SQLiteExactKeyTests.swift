import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

/// Canonically equivalent keys (`"caf\u{E9}"` and `"cafe\u{301}"`) stay two keys through the store, its files
/// and the model readers; where a Swift `String`-keyed dictionary would merge them, reading is an error.
@Suite struct SQLiteExactKeyTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static let envelope: PropertyList = .dictionary(
        PropertyList.Dictionary(
            uniqueKeysWithValues: [
                ("majorVersion", 2), ("minorVersion", 1), ("title", "menu"), ("body", "two keys"),
                (precomposed, "precomposed"), (decomposed, "decomposed"),
                ("nested", [precomposed: 1, decomposed: 2] as PropertyList),
            ] as [(String, PropertyList)]))

    @Test(arguments: Backend.allCases)
    func bothKeysSurviveSaveLoadExportAndImport(backend: Backend) async throws {
        let store = try backend.makeStore()
        try await store.write { transaction in
            try transaction.save(envelope: Self.envelope, key: "menu", in: "notes")
        }
        let loaded = try await store.read { transaction in
            try #require(try transaction.document(in: "notes", key: "menu")).envelope()
        }
        #expect(loaded == Self.envelope)
        #expect(loaded.dictionaryValue?.count == 7)

        let directory = try temporaryDirectory()
        for format in [PropertyListFormat.binary, .xml] {
            let path = "\(directory)/menu-\(format).plist"
            try await store.export(key: "menu", in: "notes", to: path, format: format)
            try await store.importFile(path, into: "imported", key: "menu-\(format)")
            let imported = try await store.read { transaction in
                try #require(try transaction.document(in: "imported", key: "menu-\(format)")).envelope()
            }
            #expect(imported == Self.envelope, "through \(format) files")
        }
    }

    @Test func aNewerMinorsEquivalentKeysAreKeptByAnOlderAppsSave() throws {
        // A document saved by a newer app (2.9) holds both spellings at its top level; this app (2.1) saves
        // its Note over it, and the unknown keys survive as two keys.
        var newer = try #require(Self.envelope.dictionaryValue)
        newer["minorVersion"] = 9
        let store = try Backend.memory.makeStore(noteConfiguration())
        try store.write { transaction in
            try transaction.save(envelope: .dictionary(newer), key: "menu", in: "notes")
        }
        try store.write { transaction in
            var note = try #require(try transaction.load(Note.self, key: "menu")).value
            note.body = "edited"
            try transaction.save(note, key: "menu")
        }
        let saved = try store.read { transaction in
            try #require(try transaction.document(in: "notes", key: "menu")).envelope()
        }
        #expect(saved[Self.precomposed] == "precomposed")
        #expect(saved[Self.decomposed] == "decomposed")
        #expect(saved["body"] == "edited")
    }

    @Test func dictionaryReaderLooksUpScalarForScalar() throws {
        let reader = try DictionaryReader(Self.envelope)
        #expect(try reader.read(Self.precomposed) == "precomposed")
        #expect(try reader.read(Self.decomposed) == "decomposed")
        #expect(!reader.contains("cafe"))
    }

    @Test func aSwiftDictionaryRefusesToMergeThem() throws {
        let value: PropertyList = [Self.precomposed: 1, Self.decomposed: 2]
        do {
            _ = try [String: Int](propertyList: value)
            Issue.record("expected an error: a [String: Int] cannot hold both keys")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("canonically equivalent"))
        }
        // Distinct keys read as before.
        #expect(try [String: Int](propertyList: ["a": 1, "b": 2]) == ["a": 1, "b": 2])
    }
}
