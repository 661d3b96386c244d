import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

/// Index values compare exactly; indexes follow their definitions; unique indexes refuse duplicates.
@Suite struct SQLiteIndexTests {
    static func valueStore(_ values: [String: PropertyList], backend: Backend = .file) throws -> SQLiteStore {
        let store = try backend.makeStore(noteConfiguration(CollectionOptions(indexes: [.path("value")])))
        try store.write { transaction in
            for (key, value) in values {
                try transaction.save(
                    envelope: ["majorVersion": 2, "minorVersion": 1, "value": value], key: key, in: "notes")
            }
        }
        return store
    }

    @Test func integersAtTheEdgesAreDistinctAndOrdered() throws {
        let store = try Self.valueStore([
            "max": .integer(.init(UInt64.max)), "maxMinus1": .integer(.init(UInt64.max - 1)),
            "int64max": .integer(.init(Int64.max)), "min": .integer(.init(Int64.min)),
            "minPlus1": .integer(.init(Int64.min + 1)), "zero": 0, "minusOne": -1,
        ])
        let equal = { (value: PropertyList) in
            try store.read { try $0.keys(in: "notes", index: "value", equalTo: value) }
        }
        #expect(try equal(.integer(.init(UInt64.max))) == ["max"])
        #expect(try equal(.integer(.init(UInt64.max - 1))) == ["maxMinus1"])
        #expect(try equal(.integer(.init(Int64.min))) == ["min"])
        let range = { (lower: PropertyList?, upper: PropertyList?) in
            try store.read { try $0.keys(in: "notes", index: "value", from: lower, to: upper) }
        }
        #expect(try range(.integer(.init(UInt64.max - 1)), nil) == ["max", "maxMinus1"])
        #expect(try range(.integer(.init(Int64.max)), .integer(.init(UInt64.max - 1))) == ["int64max", "maxMinus1"])
        #expect(try range(nil, .integer(.init(Int64.min + 1))) == ["min", "minPlus1"])
        // Crossing zero.
        #expect(try range(-1, 0) == ["minusOne", "zero"])
        #expect(try range(.integer(.init(Int64.min)), 0).count == 4)
    }

    @Test func realsCompareNumericallyWithIntegersAndNaNIsNeverFound() throws {
        let store = try Self.valueStore([
            "negZero": .real(-0.0), "posZero": .real(0.0), "three": 3, "threeReal": 3.0, "half": 0.5,
            "minusHalf": -0.5, "tiny": .real(.leastNonzeroMagnitude), "minusTiny": .real(-.leastNonzeroMagnitude),
            "inf": .real(.infinity), "minusInf": .real(-.infinity), "nan": .real(.nan),
            "big": .real(18_446_744_073_709_551_616.0),
        ])
        let equal = { (value: PropertyList) in
            try store.read { try $0.keys(in: "notes", index: "value", equalTo: value) }
        }
        let range = { (lower: PropertyList?, upper: PropertyList?) in
            try store.read { try $0.keys(in: "notes", index: "value", from: lower, to: upper) }
        }
        // −0.0 and 0.0 are one number (IEEE equality), as are 3 and 3.0.
        #expect(try equal(.real(-0.0)) == ["negZero", "posZero"])
        #expect(try equal(0) == ["negZero", "posZero"])
        #expect(try equal(3) == ["three", "threeReal"])
        #expect(try equal(.real(.nan)) == [])
        #expect(try range(.real(.nan), nil) == [])
        #expect(try range(-0.5, 0.5) == ["half", "minusHalf", "minusTiny", "negZero", "posZero", "tiny"])
        #expect(try range(.real(-.leastNonzeroMagnitude), .real(-0.0)) == ["minusTiny", "negZero", "posZero"])
        #expect(try range(nil, .real(-1)) == ["minusInf"])
        // 2^64 as a real is above every integer, and below +∞.
        #expect(try range(.integer(.init(UInt64.max)), nil) == ["big", "inf"])
    }

    @Test func stringsDatesDataAndBooleansKeepTheirTypeAndOrder() throws {
        let store = try Self.valueStore([
            "nul": .string("a\u{0}b"), "a": "a", "ab": "ab", "date": .date(0), "later": .date(100),
            "data": .data([0, 1]), "true": true, "false": false, "one": 1,
        ])
        let equal = { (value: PropertyList) in
            try store.read { try $0.keys(in: "notes", index: "value", equalTo: value) }
        }
        let range = { (lower: PropertyList?, upper: PropertyList?) in
            try store.read { try $0.keys(in: "notes", index: "value", from: lower, to: upper) }
        }
        #expect(try equal(.string("a\u{0}b")) == ["nul"])
        #expect(try equal("a") == ["a"])
        // "a" < "a\0b" < "ab": scalar order, NUL included.
        #expect(try range("a", .string("a\u{0}c")) == ["a", "nul"])
        #expect(try range(.string("a\u{1}"), nil) == ["ab"])
        // A one-sided range stays in its type: dates are not numbers, true is not 1.
        #expect(try range(.date(50), nil) == ["later"])
        #expect(try range(0, nil) == ["one"])
        #expect(try equal(true) == ["true"])
        #expect(try equal(.data([0, 1])) == ["data"])
        // Across types, the documented order: Booleans, numbers, dates, strings, data.
        #expect(try range(false, .data([0, 1])).count == 9)
        #expect(try range(.date(100), "a") == ["a", "later"])
    }

    @Test func anIndexDeclaredLaterCoversStoredDocumentsAndAnUndeclaredOneIsDropped() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        do {
            let store = try SQLiteStore(path: path, store: noteConfiguration())
            try store.write { transaction in
                for index in 0..<3 {
                    try transaction.save(Note(title: "t\(index)", body: "", priority: index), key: "k\(index)")
                }
            }
            #expect(throws: HangarError.self) {
                try store.read { try $0.keys(in: "notes", index: "priority", equalTo: 1) }
            }
        }
        let events = EventLog()
        var configuration = noteConfiguration(CollectionOptions(indexes: [.path("priority")]))
        configuration.indexProgress = { events.append("\($0.indexes) \($0.indexed)/\($0.total)") }
        do {
            let store = try SQLiteStore(path: path, store: configuration)
            #expect(events.lines == ["[\"priority\"] 3/3"])
            #expect(try store.read { try $0.keys(in: "notes", index: "priority", from: 1, to: nil) } == ["k1", "k2"])
        }
        // Opening again with the same definition builds nothing.
        _ = try SQLiteStore(path: path, store: configuration)
        #expect(events.lines.count == 1)
        // Redefined under the same name: rebuilt, no entry of the old definition left.
        let redefined = noteConfiguration(
            CollectionOptions(indexes: [IndexDefinition(name: "priority", version: "2") { [$0["title"] ?? ""] }]))
        do {
            let store = try SQLiteStore(path: path, store: redefined)
            #expect(try store.read { try $0.keys(in: "notes", index: "priority", equalTo: 1) } == [])
            #expect(try store.read { try $0.keys(in: "notes", index: "priority", equalTo: "t1") } == ["k1"])
        }
        // Removed: its entries go with it.
        _ = try SQLiteStore(path: path, store: noteConfiguration())
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1000)
        #expect(try raw.integer("SELECT count(*) FROM index_entries") == 0)
        // The owners index every store keeps stays; the notes' are gone.
        #expect(try raw.integer("SELECT count(*) FROM index_catalog WHERE collection = 'notes'") == 0)
        #expect(try raw.integer("SELECT count(*) FROM index_catalog WHERE collection = '_sync.owners'") == 1)
    }

    @Test func aWriteByAStoreWithoutTheDefinitionDropsTheIndexUntilItIsRebuilt() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let configuration = noteConfiguration(CollectionOptions(indexes: [.path("priority")]))
        try SQLiteStore(path: path, store: configuration).write {
            try $0.save(Note(title: "a", body: "", priority: 1), key: "a")
        }
        // A tool that does not know the index writes: the index would miss "b", so it is dropped whole.
        var other = StoreConfiguration()
        other.collections["notes"] = nil
        let tool = try SQLiteStore(path: path, store: other)
        try tool.write { try $0.save(Note(title: "b", body: "", priority: 1), key: "b") }
        let reopened = try SQLiteStore(path: path, store: configuration)
        #expect(try reopened.read { try $0.keys(in: "notes", index: "priority", equalTo: 1) } == ["a", "b"])
        try reopened.reindex("notes")
        #expect(try reopened.read { try $0.keys(in: "notes", index: "priority", equalTo: 1) } == ["a", "b"])
    }

    @Test(arguments: Backend.allCases)
    func aUniqueIndexRefusesADuplicateAndWritesNothing(backend: Backend) throws {
        let options = CollectionOptions(indexes: [.path("title", name: "title", unique: true)])
        let store = try backend.makeStore(noteConfiguration(options))
        try store.write { try $0.save(Note(title: "N123", body: "first"), key: "a") }
        // The duplicate save throws and writes nothing; the transaction's other work stays when it is caught.
        try store.write { transaction in
            try transaction.save(Note(title: "other", body: ""), key: "c")
            #expect {
                try transaction.save(Note(title: "N123", body: "second"), key: "b")
            } throws: { error in
                guard let error = error as? HangarError, error.code == .duplicate else { return false }
                return error.index == "title" && error.otherKey == "a" && error.key == "b"
            }
        }
        #expect(try store.read { try $0.keys(in: "notes") } == ["a", "c"])
        #expect(try store.read { try $0.keys(in: "notes", index: "title", equalTo: "N123") } == ["a"])
        // Saving the same document again with its own value is not a duplicate; a freed value can be taken.
        try store.write { try $0.save(Note(title: "N123", body: "again"), key: "a") }
        try store.write { try $0.delete(key: "a", in: "notes") }
        #expect(try store.write { try $0.save(Note(title: "N123", body: ""), key: "b") } == 1)
    }

    @Test func aUniqueIndexOverDuplicatesFailsToBuildAndChangesNothing() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        try SQLiteStore(path: path).write { transaction in
            try transaction.save(Note(title: "same", body: ""), key: "a")
            try transaction.save(Note(title: "same", body: ""), key: "b")
        }
        let unique = noteConfiguration(CollectionOptions(indexes: [.path("title", unique: true)]))
        #expect {
            try SQLiteStore(path: path, store: unique)
        } throws: { error in
            guard let error = error as? HangarError, error.code == .duplicate else { return false }
            return error.index == "title" && error.otherKey == "a" && error.key == "b"
        }
        let raw = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 1000)
        #expect(try raw.integer("SELECT count(*) FROM index_entries") == 0)
    }

    @Test func aCorruptDocumentDoesNotStopAnIndexBuild() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        try SQLiteStore(path: path).write { transaction in
            try transaction.save(Note(title: "good", body: "", priority: 4), key: "good")
            try transaction.save(Note(title: "bad", body: "", priority: 4), key: "bad")
        }
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1000)
        try raw.execute("UPDATE documents SET body = x'00010203' WHERE key = 'bad'")
        let store = try SQLiteStore(
            path: path, store: noteConfiguration(CollectionOptions(indexes: [.path("priority")])))
        #expect(try store.read { try $0.keys(in: "notes", index: "priority", equalTo: 4) } == ["good"])
        #expect(throws: HangarError.self) { try store.read { try $0.load(Note.self, key: "bad") } }
    }
}
