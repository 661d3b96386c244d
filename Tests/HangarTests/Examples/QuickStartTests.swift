import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

// The README's quick start, kept compiling and correct here. Between the markers the code is the README's,
// line for line, except that `folder` is a temporary folder (the README sets it to
// `SQLiteStore.defaultDirectory(application: "QuickStart")`); the PostgreSQL part is the Engines article's
// (`Sources/Hangar/Hangar.docc/Engines.md`), but that its `url` is the test server's (the article sets it to an
// example URL). Change both together.

// README quick start: model
/// An airfield, stored as a versioned document. Version 1 called the ICAO code `code`; version 2 calls it `icao`.
struct Airfield: VersionedDocument {
    static let collection = "airfields"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0),
        oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "rename code to icao") { content in
                var content = content
                content["icao"] = content.removeValue(forKey: "code")
                return content
            }
        ])

    var icao: String
    var name: String
    var elevationFeet: Int?

    init(icao: String, name: String, elevationFeet: Int? = nil) {
        self.icao = icao
        self.name = name
        self.elevationFeet = elevationFeet
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        icao = try reader.read("icao")
        name = try reader.read("name")
        elevationFeet = try reader.readIfPresent("elevationFeet")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("icao", icao)
        writer.set("name", name)
        writer.set("elevationFeet", elevationFeet)  // nil is left out
        return writer.propertyList
    }
}
// README quick start: end of model

@Suite struct QuickStartTests {
    @Test func theReadmeQuickStartWorksAsWritten() async throws {
        let folder = NSTemporaryDirectory() + "hangar-quick-start-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }

        // README quick start: use
        let store = try SQLiteStore(path: folder + "/airfields.sqlite")

        // Save, then load: every save gets a revision.
        let revision = try await store.write {
            try $0.save(Airfield(icao: "ESSB", name: "Bromma", elevationFeet: 47), key: "ESSB")
        }
        let bromma = try await store.read { try $0.load(Airfield.self, key: "ESSB") }
        print(bromma?.value.name ?? "-", bromma?.revision ?? 0)  // Bromma 1

        // A version 1 document (from an older app, or a file) is migrated when it is read.
        let old: PropertyList = ["majorVersion": 1, "minorVersion": 0, "code": "ESKN", "name": "Skavsta"]
        try await store.write { try $0.save(envelope: old, key: "ESKN", in: Airfield.collection) }
        let skavsta = try await store.read { try $0.load(Airfield.self, key: "ESKN") }
        print(skavsta?.value.icao ?? "-", skavsta?.wasMigrated ?? false)  // ESKN true

        // Export to a .plist file, binary or XML.
        try await store.export(key: "ESSB", in: Airfield.collection, to: folder + "/ESSB.plist", format: .xml)
        // README quick start: end of use

        #expect(revision == 1)
        #expect(bromma?.value.name == "Bromma")
        #expect(bromma?.value.elevationFeet == 47)
        #expect(skavsta?.value.icao == "ESKN")
        #expect(skavsta?.value.elevationFeet == nil)
        #expect(skavsta?.wasMigrated == true)
        let exported = try #require(FileManager.default.contents(atPath: folder + "/ESSB.plist"))
        #expect(
            try PropertyList(xml: [UInt8](exported))
                == ["majorVersion": 2, "minorVersion": 0, "icao": "ESSB", "name": "Bromma", "elevationFeet": 47])
    }
}

/// The quick start on PostgreSQL (the Engines article), run on the test server (`Scripts/with-postgres.sh swift test`; skipped,
/// loudly, without one).
@Suite(.enabled(if: TestPostgres.shouldRun)) struct QuickStartPostgresTests {
    @Test func theReadmePostgresQuickStartWorksAsWritten() async throws {
        let url = try TestPostgres.requireURL() + "?schema=" + TestPostgres.uniqueSchemaName("quickstart")

        // README quick start: postgres
        var configuration = StoreConfiguration()
        configuration.collections[Airfield.collection] = CollectionOptions(history: .keepLast(10))
        // Opens (creating or upgrading) the store's tables in the schema `hangar` of that database.
        let shared = try await PostgresStore(url: url, store: configuration)
        let saved = try await shared.write {
            try await $0.save(Airfield(icao: "ESGG", name: "Landvetter", elevationFeet: 506), key: "ESGG")
        }
        let landvetter = try await shared.read { try await $0.load(Airfield.self, key: "ESGG") }
        print(landvetter?.value.name ?? "-", saved)  // Landvetter 1
        await shared.close()
        // README quick start: end of postgres

        #expect(saved == 1)
        #expect(landvetter?.value.name == "Landvetter")
        #expect(landvetter?.value.elevationFeet == 506)
        #expect(landvetter?.revision == 1)
    }
}

/// The README (and the Engines article, for PostgreSQL) shows the marked code of this file, line for line: an edit
/// to one must be made to the other.
@Suite struct QuickStartReadmeTests {
    @Test func readmeShowsThisFilesCode() throws {
        let readme = String(
            decoding: try #require(FileManager.default.contents(atPath: repositoryRoot + "/README.md")), as: UTF8.self)
        let source = String(decoding: try #require(FileManager.default.contents(atPath: #filePath)), as: UTF8.self)
        let model = try section(
            of: source, from: "// README quick start: model\n", to: "// README quick start: end of model")
        let use = try unindented(
            section(
                of: source, from: "        // README quick start: use\n",
                to: "        // README quick start: end of use"))
        #expect(readme.contains(model.trimmingCharacters(in: .newlines)), "the README's model differs from this file's")
        #expect(readme.contains(use.trimmingCharacters(in: .newlines)), "the README's use differs from this file's")
        let postgres = try unindented(
            section(
                of: source, from: "        // README quick start: postgres\n",
                to: "        // README quick start: end of postgres"))
        let engines = String(
            decoding: try #require(
                FileManager.default.contents(atPath: repositoryRoot + "/Sources/Hangar/Hangar.docc/Engines.md")),
            as: UTF8.self)
        #expect(
            engines.contains(postgres.trimmingCharacters(in: .newlines)),
            "the Engines article's PostgreSQL quick start differs from this file's")
    }

    /// `text` without the 8 spaces of indentation a test body adds.
    private func unindented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }
            .joined(separator: "\n")
    }

    private func section(of text: String, from start: String, to end: String) throws -> String {
        let lower = try #require(text.range(of: start)).upperBound
        let upper = try #require(text.range(of: end, range: lower..<text.endIndex)).lowerBound
        return String(text[lower..<upper])
    }
}
