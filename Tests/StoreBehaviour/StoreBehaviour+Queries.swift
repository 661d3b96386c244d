import Foundation
import Hangar
import PropertyList
import Testing

/// Queries, indexes, the change feed, files and the update helper.
extension StoreBehaviour {
    func classTagQueries() async throws {
        try await withStore { store in
            try await store.write { transaction in
                for (key, tag) in [("c", "Glider"), ("a", "Powered"), ("b", "Glider"), ("d", nil)]
                    as [(String, String?)]
                {
                    var content: PropertyList.Dictionary = ["title": .string(key), "body": ""]
                    if let tag { content["class"] = .string(tag) }
                    try await transaction.save(
                        envelope: Memo.envelope(major: 2, minor: 1, content), key: key, in: "planes")
                }
            }
            let (gliders, powered, none) = try await store.read { transaction in
                (
                    try await transaction.keys(in: "planes", classTag: "Glider"),
                    try await transaction.keys(in: "planes", classTag: "Powered"),
                    try await transaction.keys(in: "planes", classTag: "Balloon")
                )
            }
            #expect(gliders == ["b", "c"])
            #expect(powered == ["a"])
            #expect(none.isEmpty)
            let history = try await store.read { try await $0.history(in: "planes", key: "a") }
            #expect(history.map(\.classTag) == ["Powered"])
        }
    }

    func keyOrderAndPaging() async throws {
        try await withStore { store in
            // Bytewise (UTF-8) order on every engine: uppercase before lowercase, then accents, then emoji.
            let keys = ["b", "B", "a", "A", "é", "e", "z", "Z", "10", "9", "😀", "a b", "a-b", "ab"]
            try await store.write { transaction in
                for key in keys { try await transaction.save(Memo(title: key), key: key) }
            }
            let sorted = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            let (all, descending, page, last) = try await store.read { transaction in
                (
                    try await transaction.keys(in: Memo.collection),
                    try await transaction.keys(in: Memo.collection, order: .descending, limit: nil, offset: 0),
                    try await transaction.keys(in: Memo.collection, order: .ascending, limit: 4, offset: 3),
                    try await transaction.keys(in: Memo.collection, order: .ascending, limit: 5, offset: 12)
                )
            }
            #expect(all == sorted, "\(engine)")
            #expect(descending == sorted.reversed())
            #expect(page == Array(sorted[3..<7]))
            #expect(last == Array(sorted[12...]))
            try await store.write { try await $0.save(Memo(title: "touched"), key: "B") }
            let recent = try await store.read {
                try await $0.keys(in: Memo.collection, order: .recentlyUpdated, limit: 1, offset: 0)
            }
            #expect(recent == ["B"])
        }
    }

    func indexesWithExactValues() async throws {
        var configuration = Self.configuration()
        configuration.collections["values"] = CollectionOptions(indexes: [.path("value"), .path("tags")])
        // Declared under its composed name only: the decomposed one is another collection, with no index.
        configuration.collections["caf\u{E9}"] = CollectionOptions(indexes: [.path("value")])
        try await withStore(configuration) { store in
            let values: [(String, PropertyList)] = [
                ("min", .integer(.init(Int64.min))), ("max", .integer(.init(UInt64.max))),
                ("maxSigned", .integer(.init(Int64.max))), ("three", 3), ("threeReal", 3.0), ("minusZero", -0.0),
                ("zero", 0), ("half", 0.5), ("big", .integer(.init(UInt64(1) << 63))), ("true", true),
                ("false", false), ("text", "3"), ("nul", "a\u{0}b"), ("data", .data([0, 1, 2])),
                ("date", .date(0)), ("infinity", .real(.infinity)),
            ]
            try await store.write { transaction in
                for (key, value) in values {
                    try await transaction.save(
                        envelope: Memo.envelope(major: 1, minor: 0, ["value": value, "tags": ["x", .string(key)]]),
                        key: key, in: "values")
                }
            }
            func equal(_ value: PropertyList) async throws -> [String] {
                try await store.read { try await $0.keys(in: "values", index: "value", equalTo: value) }
            }
            #expect(try await equal(.integer(.init(Int64.min))) == ["min"], "\(engine)")
            #expect(try await equal(.integer(.init(UInt64.max))) == ["max"])
            #expect(try await equal(.integer(.init(UInt64(1) << 63))) == ["big"])
            #expect(try await equal(3) == ["three", "threeReal"])
            #expect(try await equal(0) == ["minusZero", "zero"])
            #expect(try await equal("3") == ["text"])
            #expect(try await equal("a\u{0}b") == ["nul"])
            #expect(try await equal(true) == ["true"])
            #expect(try await equal(.real(.nan)).isEmpty)
            let (numbers, upToZero, tagged) = try await store.read { transaction in
                (
                    try await transaction.keys(in: "values", index: "value", from: 0.5, to: .integer(.init(Int64.max))),
                    try await transaction.keys(in: "values", index: "value", from: nil, to: 0),
                    try await transaction.keys(in: "values", index: "tags", equalTo: "x")
                )
            }
            #expect(numbers == ["half", "maxSigned", "three", "threeReal"])
            #expect(upToZero == ["min", "minusZero", "zero"])
            #expect(tagged.count == values.count)
            try await expectError(.notFound) {
                _ = try await store.read { try await $0.keys(in: "values", index: "undeclared", equalTo: 1) }
            }
            // Saving a new value moves the entry; deleting removes it.
            try await store.write { transaction in
                try await transaction.save(
                    envelope: Memo.envelope(major: 1, minor: 0, ["value": 42]), key: "three", in: "values")
                _ = try await transaction.delete(key: "threeReal", in: "values")
            }
            #expect(try await equal(3).isEmpty)
            #expect(try await equal(42) == ["three"])
            // One transaction saving to two collections whose names are canonically equivalent: each keeps its
            // own indexes (the one without first, so that nothing it learns is taken for the other's).
            try await store.write { transaction in
                try await transaction.save(
                    envelope: Memo.envelope(major: 1, minor: 0, ["value": 7]), key: "plain", in: "cafe\u{301}")
                try await transaction.save(
                    envelope: Memo.envelope(major: 1, minor: 0, ["value": 7]), key: "indexed", in: "caf\u{E9}")
            }
            let composed = try await store.read { try await $0.keys(in: "caf\u{E9}", index: "value", equalTo: 7) }
            #expect(composed == ["indexed"], "\(engine)")
        }
    }

    func uniqueIndexes() async throws {
        var configuration = Self.configuration()
        configuration.collections["people"] = CollectionOptions(indexes: [.path("email", unique: true)])
        try await withStore(configuration) { store in
            func person(_ email: String) -> PropertyList {
                Memo.envelope(major: 1, minor: 0, ["email": .string(email)])
            }
            try await store.write { try await $0.save(envelope: person("a@x"), key: "ann", in: "people") }
            do {
                _ = try await store.write { transaction in
                    try await transaction.save(envelope: person("b@x"), key: "bob", in: "people")
                    try await transaction.save(envelope: person("a@x"), key: "eve", in: "people")
                }
                Issue.record("a second holder of a unique value was saved")
            } catch let error as HangarError {
                #expect(error.code == .duplicate, "\(engine): \(error)")
                #expect(error.index == "email")
                #expect(error.otherKey == "ann")
            }
            // Nothing of the failed transaction is kept; the same key may save its own value again.
            #expect(try await store.read { try await $0.keys(in: "people") } == ["ann"])
            #expect(try await store.write { try await $0.save(envelope: person("a@x"), key: "ann", in: "people") } == 2)
            try await store.write { _ = try await $0.delete(key: "ann", in: "people") }
            #expect(try await store.write { try await $0.save(envelope: person("a@x"), key: "eve", in: "people") } == 1)
        }
    }

    func changeFeed() async throws {
        try await withStore { store in
            try await store.write { transaction in
                try await transaction.save(Memo(title: "1"), key: "a")
                try await transaction.save(Memo(title: "1"), key: "b")
            }
            try? await store.write { transaction in
                try await transaction.save(Memo(title: "rolled back"), key: "c")
                throw BehaviourFailure(description: "rolled back")
            }
            try await store.write { _ = try await $0.delete(key: "a", in: Memo.collection) }
            try await store.write { _ = try await $0.restore(key: "a", in: Memo.collection, revision: 1) }
            try await store.write { try await $0.save(Memo(title: "other"), key: "x", in: "other") }
            let changes = try await store.changes(since: 0)
            #expect(changes.map(\.sequence) == [1, 2, 3, 4, 5], "\(engine)")
            #expect(changes.map(\.key) == ["a", "b", "a", "a", "x"])
            #expect(changes.map(\.kind) == [.save, .save, .delete, .restore, .save])
            #expect(changes.map(\.revision) == [1, 1, 1, 2, 1])
            // A transaction's id is the sequence of its first change.
            #expect(changes.map(\.transaction) == [1, 1, 3, 4, 5])
            #expect(changes[0].version == DocumentVersion(major: 2, minor: 1))
            #expect(try await store.changes(since: 2, in: Memo.collection, limit: 1).map(\.sequence) == [3])
            #expect(try await store.changes(since: 0, in: "other", limit: nil).map(\.sequence) == [5])
            #expect(try await store.lastChangeSequence() == 5)
            // A follower sees what was committed, then what commits next.
            let follower = Task {
                var seen: [Int] = []
                for try await change in store.follow(after: 3) {
                    seen.append(change.sequence)
                    if seen.count == 3 { break }
                }
                return seen
            }
            try await store.write { try await $0.save(Memo(title: "6"), key: "f") }
            #expect(try await follower.value == [4, 5, 6])
        }
    }

    func followingAcrossInstances() async throws {
        try await withStore { store in
            let other = try await reopen(store, Self.configuration())
            let follower = Task {
                var seen: [String] = []
                for try await change in store.follow(after: 0, in: Memo.collection) {
                    seen.append(change.key)
                    if seen.count == 3 { break }
                }
                return seen
            }
            for key in ["p", "q", "r"] { try await other.write { try await $0.save(Memo(title: key), key: key) } }
            let seen = try await follower.value
            await close(other)
            #expect(seen == ["p", "q", "r"], "\(engine)")
        }
    }

    func changeRetention() async throws {
        var configuration = StoreConfiguration()
        configuration.changeRetention = ChangeRetention(maximumCount: 5, maximumAge: nil)
        try await withStore(configuration) { store in
            for index in 1...12 { try await store.write { try await $0.save(Memo(title: "\(index)"), key: "k") } }
            do {
                _ = try await store.changes(since: 3)
                Issue.record("\(engine): pruned changes were not reported")
            } catch let error as HangarError {
                #expect(error.code == .changesTooOld)
                #expect(error.oldestRetainedSequence == 8, "\(engine)")
            }
            #expect(try await store.changes(since: 7).map(\.sequence) == Array(8...12))
        }
    }

    func exportAndImport() async throws {
        try await withStore { store in
            let directory = FileManager.default.temporaryDirectory.path + "/hangar-behaviour-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let longKey = String(repeating: "long/", count: 80)
            try await store.write { transaction in
                try await transaction.save(Memo(title: "a", tags: ["t"]), key: "a/b")
                try await transaction.save(Memo(title: "long"), key: longKey)
            }
            let paths = try await store.exportCollection(Memo.collection, to: directory + "/all")
            #expect(paths.count == 2)
            let stored = try await store.read { try await $0.document(in: Memo.collection, key: "a/b") }
            try await store.export(key: "a/b", in: Memo.collection, to: directory + "/one.plist")
            let file = try Data(contentsOf: URL(fileURLWithPath: directory + "/one.plist"))
            #expect(stored.map { Data($0.body) } == file, "the exported file is the stored body, byte for byte")
            let imported = try await store.importFiles(paths, into: "copies")
            #expect(Set(imported.map(\.key)) == ["a/b", longKey])
            let copy = try await store.read { try await $0.document(in: "copies", key: "a/b") }
            #expect(copy?.body == stored?.body)
            // A bad file among good ones imports nothing, and names the file.
            try Data("not a plist".utf8).write(to: URL(fileURLWithPath: directory + "/bad.plist"))
            do {
                try await store.importFiles(paths + [directory + "/bad.plist"], into: "others")
                Issue.record("a bad file was imported")
            } catch let error as HangarError {
                #expect(error.file == directory + "/bad.plist")
            }
            #expect(try await store.read { try await $0.count(in: "others") } == 0)
        }
    }

    func updateWithRetries() async throws {
        try await withStore { store in
            try await store.write { try await $0.save(Memo(title: "counter"), key: "n") }
            let other = try await reopen(store, Self.configuration())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    let target = writer.isMultiple(of: 2) ? store : other
                    group.addTask {
                        for _ in 0..<10 { try await target.update(Memo.self, key: "n") { $0.count += 1 } }
                    }
                }
                try await group.waitForAll()
            }
            await close(other)
            let loaded = try await store.read { try await $0.load(Memo.self, key: "n") }
            #expect(loaded?.value.count == 40, "\(engine): no update is lost")
            #expect(loaded?.revision == 41)
            try await expectError(.notFound) { try await store.update(Memo.self, key: "none") { $0.count += 1 } }
        }
    }
}
