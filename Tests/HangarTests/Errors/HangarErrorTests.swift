import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

/// The Hangar module's one error: codes that match in catch clauses, every former kind, SQLite's result codes,
/// and descriptions that never show a document's contents.
@Suite struct HangarErrorTests {
    /// Every code, with the name it describes itself by: the kinds `ModelError`, `DocumentError` and `StoreError`
    /// had (`newerMajor` was in both of the last two, and is one code now).
    static let codes: [(HangarError.Code, String)] = [
        (.missingKey, "missingKey"), (.typeMismatch, "typeMismatch"), (.outOfRange, "outOfRange"),
        (.invalidValue, "invalidValue"), (.unknownClassTag, "unknownClassTag"),
        (.disallowedClassTag, "disallowedClassTag"), (.unrepresentable, "unrepresentable"),
        (.notAnEnvelope, "notAnEnvelope"), (.missingVersion, "missingVersion"), (.invalidVersion, "invalidVersion"),
        (.newerMajor, "newerMajor"), (.unsupportedOldMajor, "unsupportedOldMajor"),
        (.migrationFailed, "migrationFailed"), (.invalidFormat, "invalidFormat"), (.conflict, "conflict"),
        (.notFound, "notFound"), (.undecodable, "undecodable"), (.invalidDocument, "invalidDocument"),
        (.newerSchema, "newerSchema"), (.io, "io"), (.invalidName, "invalidName"), (.database, "database"),
        (.duplicate, "duplicate"), (.reservedKey, "reservedKey"), (.contention, "contention"),
        (.unsupportedFileSystem, "unsupportedFileSystem"), (.changesTooOld, "changesTooOld"),
    ]

    @Test func everyFormerKindIsADistinctCodeThatMatchesItsErrors() {
        #expect(Self.codes.count == 27)
        #expect(Set(Self.codes.map(\.0)).count == Self.codes.count)
        for (code, name) in Self.codes {
            #expect(code.description == name)
            let error: any Error = HangarError(code, "m")
            switch error {
            case code: break
            default: Issue.record("\(name) does not match its own error")
            }
            for (other, otherName) in Self.codes where other != code {
                #expect(!(other ~= error), "\(otherName) matches a \(name) error")
            }
        }
        // The short spellings are the codes themselves.
        #expect(HangarError.conflict == HangarError.Code.conflict)
        #expect(HangarError.missingKey == HangarError.Code.missingKey)
        #expect(HangarError.newerMajor == HangarError.Code.newerMajor)
        #expect(HangarError.unsupportedFileSystem == HangarError.Code.unsupportedFileSystem)
    }

    @Test func codesMatchInCatchClausesAcrossTheLayers() throws {
        // The model layer.
        do {
            _ = try DictionaryReader(["a": 1]).read("name") as String
            Issue.record("expected a missing key")
        } catch HangarError.missingKey {
        } catch {
            Issue.record("unexpected \(error)")
        }
        // Documents: the format and the store both refuse a newer major with the one code.
        let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0), oldestReadableMajor: 1)
        do {
            _ = try format.open(["majorVersion": 9, "minorVersion": 0])
            Issue.record("expected a newer major")
        } catch HangarError.Code.newerMajor {
        } catch {
            Issue.record("unexpected \(error)")
        }
        // The store.
        let store = try SQLiteStore.inMemory(store: noteConfiguration())
        try store.write { try $0.save(Note(title: "t", body: "b"), key: "a") }
        do {
            try store.write { try $0.save(Note(title: "t", body: "c"), key: "a", expectedRevision: 7) }
            Issue.record("expected a conflict")
        } catch HangarError.conflict {
        } catch {
            Issue.record("unexpected \(error)")
        }
        do {
            // Refused by the save when the collection names a format, by the load otherwise: one code either way.
            try store.write { try $0.save(envelope: ["majorVersion": 9, "minorVersion": 0], key: "new", in: "notes") }
            _ = try store.read { try $0.load(Note.self, key: "new") }
            Issue.record("expected a newer major")
        } catch HangarError.newerMajor {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aRealBusyDatabaseHasTheBusyResultCode() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        var configuration = SQLiteStoreConfiguration(path: path, store: noteConfiguration())
        configuration.busyTimeoutMilliseconds = 0
        let store = try SQLiteStore(configuration: configuration)
        // Another connection to the file holds the write lock.
        let holder = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 0)
        try holder.execute("BEGIN IMMEDIATE")
        do {
            try store.write { try $0.save(Note(title: "blocked", body: ""), key: "blocked") }
            Issue.record("expected SQLITE_BUSY")
        } catch let error as HangarError {
            #expect(error.code == .database)
            #expect(error.sqliteResultCode == .busy)
            #expect(error.sqliteResultCode?.primary.rawValue == 5)
            #expect(error.sqliteResultCode != .locked)
            #expect(error.description.contains("SQLite error 5"))
        }
        try holder.execute("ROLLBACK")
        try store.write { try $0.save(Note(title: "free", body: ""), key: "free") }
        #expect(try store.read { try $0.keys(in: "notes") } == ["free"])
    }

    @Test func resultCodesMatchTheirExtendedCodesByThePrimaryByte() {
        let busySnapshot = HangarError.SQLiteResultCode(rawValue: 5 | (2 << 8))  // SQLITE_BUSY_SNAPSHOT
        let constraintUnique = HangarError.SQLiteResultCode(rawValue: 19 | (8 << 8))  // SQLITE_CONSTRAINT_UNIQUE
        #expect(busySnapshot == .busy)
        #expect(busySnapshot.rawValue == 517)
        #expect(busySnapshot.primary.rawValue == 5)
        #expect(busySnapshot.hashValue == HangarError.SQLiteResultCode.busy.hashValue)
        #expect(constraintUnique == .constraint && constraintUnique != .busy)
        #expect(busySnapshot.description == "SQLITE_BUSY (517)")
        #expect(HangarError.SQLiteResultCode.notADatabase.description == "SQLITE_NOTADB (26)")
        let error = HangarError(.database, "m", resultCode: 2067)
        #expect(error.sqliteResultCode == .constraint)
        #expect(HangarError(.conflict, "m").sqliteResultCode == nil)
    }

    @Test func aStoreErrorsDescriptionNeverShowsADocumentsValues() throws {
        let secret = "SECRET-4711"
        let options = CollectionOptions(indexes: [.path("title", name: "title", unique: true)])
        let store = try SQLiteStore.inMemory(store: noteConfiguration(options))
        try store.write { try $0.save(Note(title: secret, body: secret), key: "a") }

        var errors: [HangarError] = []
        // A duplicate of a unique index's value.
        do {
            try store.write { try $0.save(Note(title: secret, body: "x"), key: "b") }
        } catch let error as HangarError {
            #expect(error.code == .duplicate && error.index == "title" && error.otherKey == "a")
            errors.append(error)
        }
        // A conflict on the document.
        do {
            try store.write { try $0.save(Note(title: secret, body: secret), key: "a", expectedRevision: 5) }
        } catch let error as HangarError {
            #expect(error.code == .conflict)
            errors.append(error)
        }
        // A stored document its model cannot read: the model error underneath quotes the value; the store's
        // description names only its kind.
        try store.write {
            try $0.save(
                envelope: ["majorVersion": 2, "minorVersion": 1, "title": 7, "body": .string(secret)], key: "c",
                in: "notes")
        }
        try store.write {
            try $0.save(
                envelope: ["majorVersion": 2, "minorVersion": 1, "title": "t", "body": 12], key: "d", in: "notes")
        }
        for key in ["c", "d"] {
            do {
                _ = try store.read { try $0.load(Note.self, key: key) }
            } catch let error as HangarError {
                #expect(error.code == .undecodable)
                let model = try #require(error.underlying as? HangarError)
                #expect(model.code == .typeMismatch)
                errors.append(error)
            }
        }
        #expect(errors.count == 4)
        for error in errors {
            #expect(!error.description.contains(secret), "\(error)")
            #expect(!error.description.contains("12"), "\(error)")
        }
        #expect(
            errors[3].description == "notes/d: The document is not a valid Note: body: expected string, found integer")
        // The model error itself still says what it found.
        #expect((errors[3].underlying as? HangarError)?.description == "body: expected string, found integer 12")
    }

    @Test func whereItHappenedIsInFieldsNotInTheMessage() {
        let model = HangarError(.invalidValue, "odd", at: ModelPath.root.appending(key: "n"))
        #expect(model.message == "odd" && model.description == "n: odd")
        #expect(model.collection == nil && model.key == nil && model.sqliteResultCode == nil)
        let stored = HangarError(.notFound, "No such document", collection: "notes", key: "k")
        #expect(stored.message == "No such document" && stored.path.isRoot)
        #expect(stored.description == "notes/k: No such document")
    }
}
