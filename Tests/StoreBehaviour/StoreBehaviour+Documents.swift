import Foundation
import Hangar
import PropertyList
import Testing

/// Saves, revisions, conflicts, transactions, history, versions.
extension StoreBehaviour {
    func savesAndRevisions() async throws {
        try await withStore { store in
            let first = try await store.write { try await $0.save(Memo(title: "one"), key: "a") }
            let second = try await store.write { try await $0.save(Memo(title: "two"), key: "a") }
            #expect(first == 1 && second == 2, "\(engine)")
            let loaded = try await store.read { try await $0.load(Memo.self, key: "a") }
            #expect(loaded?.value == Memo(title: "two"))
            #expect(loaded?.revision == 2)
            #expect(loaded?.wasMigrated == false)
            let stored = try await store.read { try await $0.document(in: Memo.collection, key: "a") }
            #expect(stored?.version == DocumentVersion(major: 2, minor: 1))
            // The body is the envelope as a binary property list.
            #expect(stored.map { Array($0.body.prefix(8)) } == Array("bplist00".utf8))
            #expect(try await store.read { try await $0.exists(in: Memo.collection, key: "a") })
            #expect(try await store.read { try await $0.exists(in: Memo.collection, key: "b") } == false)
            #expect(try await store.read { try await $0.load(Memo.self, key: "b") } == nil)
            #expect(try await store.read { try await $0.count(in: Memo.collection) } == 1)
            #expect(try await store.read { try await $0.collections() } == [Memo.collection])
            // One document read on its own (PostgreSQL: one statement, no transaction) reads the same.
            #expect(try await store.document(in: Memo.collection, key: "a") == stored)
            #expect(try await store.document(in: Memo.collection, key: "b") == nil)
            #expect(try await store.load(Memo.self, key: "a")?.value == Memo(title: "two"))
            #expect(try await store.load(Memo.self, key: "b") == nil)
        }
    }

    func expectedRevisionConflicts() async throws {
        try await withStore { store in
            try await store.write { try await $0.save(Memo(title: "one"), key: "a", expectedRevision: 0) }
            try await expectError(.conflict) {
                _ = try await store.write { try await $0.save(Memo(title: "again"), key: "a", expectedRevision: 0) }
            }
            try await expectError(.conflict) {
                _ = try await store.write { try await $0.save(Memo(title: "stale"), key: "a", expectedRevision: 7) }
            }
            try await expectError(.conflict) {
                _ = try await store.write { try await $0.delete(key: "a", in: Memo.collection, expectedRevision: 3) }
            }
            #expect(try await store.write { try await $0.save(Memo(title: "two"), key: "a", expectedRevision: 1) } == 2)
            #expect(try await store.read { try await $0.load(Memo.self, key: "a") }?.value.title == "two")
            // A conflict caught inside a transaction leaves the rest of it able to commit.
            let saved = try await store.write { transaction in
                do {
                    try await transaction.save(Memo(title: "x"), key: "a", expectedRevision: 1)
                } catch let error as HangarError {
                    #expect(error.code == .conflict)
                }
                return try await transaction.save(Memo(title: "b"), key: "b")
            }
            #expect(saved == 1)
        }
    }

    func multiDocumentTransactions() async throws {
        try await withStore { store in
            try await store.write { transaction in
                for index in 0..<5 { try await transaction.save(Memo(title: "\(index)"), key: "k\(index)") }
            }
            // A transaction that throws after saving leaves nothing of itself.
            await #expect(throws: BehaviourFailure.self) {
                _ = try await store.write { transaction in
                    try await transaction.save(Memo(title: "changed"), key: "k0")
                    try await transaction.save(Memo(title: "new"), key: "new")
                    _ = try await transaction.delete(key: "k1", in: Memo.collection)
                    throw BehaviourFailure(description: "rolled back")
                }
            }
            let (titles, newExists, lastSequence) = try await store.read { transaction in
                var titles: [String] = []
                for key in try await transaction.keys(in: Memo.collection) {
                    titles.append(try await transaction.load(Memo.self, key: key)?.value.title ?? "-")
                }
                return (
                    titles, try await transaction.exists(in: Memo.collection, key: "new"),
                    try await transaction.lastChangeSequence()
                )
            }
            #expect(titles == ["0", "1", "2", "3", "4"])
            #expect(!newExists)
            #expect(lastSequence == 5)
            // Reads inside a write see its own saves.
            let seen = try await store.write { transaction in
                try await transaction.save(Memo(title: "inside"), key: "k9")
                return try await transaction.load(Memo.self, key: "k9")?.value.title
            }
            #expect(seen == "inside")
        }
    }

    func historyAndRetention() async throws {
        var configuration = Self.configuration()
        configuration.collections[Memo.collection] = CollectionOptions(history: .keepLast(2))
        configuration.collections["all"] = CollectionOptions(history: .keepAll)
        configuration.collections["none"] = CollectionOptions(history: .keepNone)
        try await withStore(configuration) { store in
            for index in 1...5 {
                _ = try await store.write { transaction in
                    try await transaction.save(Memo(title: "\(index)"), key: "a")
                    try await transaction.save(Memo(title: "\(index)"), key: "a", in: "all")
                    try await transaction.save(Memo(title: "\(index)"), key: "a", in: "none")
                }
            }
            let (kept, all, none) = try await store.read { transaction in
                (
                    try await transaction.history(in: Memo.collection, key: "a"),
                    try await transaction.history(in: "all", key: "a"),
                    try await transaction.history(in: "none", key: "a")
                )
            }
            #expect(kept.map(\.revision) == [3, 4, 5], "\(engine)")
            #expect(kept.map(\.isCurrent) == [false, false, true])
            #expect(all.map(\.revision) == [1, 2, 3, 4, 5])
            #expect(none.map(\.revision) == [5])
            let third = try await store.read { try await $0.load(Memo.self, key: "a", revision: 3) }
            #expect(third?.value.title == "3")
            #expect(third?.revision == 3)
            #expect(try await store.read { try await $0.document(in: Memo.collection, key: "a", revision: 1) } == nil)
        }
    }

    func deleteAndRestore() async throws {
        try await withStore { store in
            for index in 1...3 { try await store.write { try await $0.save(Memo(title: "\(index)"), key: "a") } }
            #expect(try await store.write { try await $0.delete(key: "a", in: Memo.collection) })
            #expect(try await store.write { try await $0.delete(key: "a", in: Memo.collection) } == false)
            #expect(try await store.read { try await $0.load(Memo.self, key: "a") } == nil)
            // Restoring an old revision makes a new one; revisions never go back, across the delete.
            let restored = try await store.write { try await $0.restore(key: "a", in: Memo.collection, revision: 2) }
            #expect(restored == 4, "\(engine)")
            let loaded = try await store.read { try await $0.load(Memo.self, key: "a") }
            #expect(loaded?.value.title == "2")
            #expect(loaded?.revision == 4)
            try await expectError(.notFound) {
                _ = try await store.write { try await $0.restore(key: "a", in: Memo.collection, revision: 40) }
            }
            // A key saved again after a delete continues its revisions.
            try await store.write { _ = try await $0.delete(key: "a", in: Memo.collection) }
            #expect(try await store.write { try await $0.save(Memo(title: "again"), key: "a") } == 5)
        }
    }

    func newerMajorRefusedAndUntouched() async throws {
        try await withStore { store in
            let future = Memo.envelope(major: 3, minor: 0, ["title": "future", "shape": "new"])
            try await store.write { try await $0.save(envelope: future, key: "f", in: Memo.collection) }
            let before = try await store.read { try await $0.document(in: Memo.collection, key: "f") }
            try await expectError(.newerMajor) { _ = try await store.read { try await $0.load(Memo.self, key: "f") } }
            try await expectError(.newerMajor) {
                _ = try await store.write { try await $0.save(Memo(title: "old app"), key: "f") }
            }
            let report = try await store.upgrade(Memo.self)
            #expect(report.newer == ["f"])
            #expect(report.upgraded.isEmpty)
            let after = try await store.read { try await $0.document(in: Memo.collection, key: "f") }
            #expect(after == before)
            // A collection whose options name the format refuses a newer major's envelope too.
            var configuration = Self.configuration()
            configuration.collections[Memo.collection] = CollectionOptions(format: Memo.format)
            let strict = try await reopen(store, configuration)
            try await expectError(.newerMajor) {
                _ = try await strict.write { try await $0.save(envelope: future, key: "g", in: Memo.collection) }
            }
            await close(strict)
        }
    }

    func newerMinorKeysKept() async throws {
        try await withStore { store in
            let newer = Memo.envelope(
                major: 2, minor: 5, ["title": "t", "body": "b", "colour": "red", "nested": ["deep": 1]])
            try await store.write { try await $0.save(envelope: newer, key: "n", in: Memo.collection) }
            var loaded = try await store.read { try await $0.load(Memo.self, key: "n") }
            #expect(loaded?.value == Memo(title: "t", body: "b"))
            loaded?.value.title = "changed by an older app"
            if let value = loaded?.value {
                _ = try await store.write { try await $0.save(value, key: "n") }
            }
            let stored = try await store.read { try await $0.document(in: Memo.collection, key: "n") }
            let content = try stored?.envelope().dictionaryValue
            #expect(content?["colour"] == "red", "\(engine)")
            #expect(content?["nested"] == ["deep": 1])
            #expect(content?["title"] == "changed by an older app")
            #expect(stored?.version == DocumentVersion(major: 2, minor: 5))
        }
    }

    func quarantine() async throws {
        try await withStore { store in
            try await store.write { transaction in
                try await transaction.save(Memo(title: "fine"), key: "a")
                try await transaction.save(
                    envelope: Memo.envelope(major: 2, minor: 0, ["body": "no title"]), key: "b", in: Memo.collection)
                try await transaction.save(
                    envelope: Memo.envelope(major: 9, minor: 0, ["title": "future"]), key: "c", in: Memo.collection)
            }
            let batch = try await store.read { try await $0.documents(Memo.self) }
            #expect(batch.loaded.map(\.key) == ["a"])
            #expect(batch.quarantined.map(\.key) == ["b", "c"])
            #expect(batch.quarantined.map(\.error.code) == [.undecodable, .newerMajor])
        }
    }

    func migrateOnReadAndBulkUpgrade() async throws {
        try await withStore { store in
            try await store.write { transaction in
                for index in 0..<7 {
                    try await transaction.save(
                        envelope: Memo.envelope(
                            major: 1, minor: 0, ["title": .string("\(index)"), "text": .string("old \(index)")]),
                        key: "old\(index)", in: Memo.collection)
                }
                try await transaction.save(Memo(title: "current"), key: "current")
            }
            let old = try await store.read { try await $0.load(Memo.self, key: "old3") }
            #expect(old?.value.body == "old 3")
            #expect(old?.wasMigrated == true)
            #expect(old?.storedVersion == DocumentVersion(major: 1, minor: 0))
            #expect(try await store.load(Memo.self, key: "old4")?.wasMigrated == true)
            var seen: [Int] = []
            let report = try await store.upgrade(Memo.self, batchSize: 3) { seen.append($0.upgraded) }
            #expect(report.upgraded.count == 7)
            #expect(seen == [3, 6, 7])
            let after = try await store.read { transaction in
                (
                    try await transaction.keys(in: Memo.collection, olderThan: Memo.format.current),
                    try await transaction.history(in: Memo.collection, key: "old3").map(\.version),
                    try await transaction.load(Memo.self, key: "old3")?.wasMigrated
                )
            }
            #expect(after.0.isEmpty)
            #expect(after.1 == [DocumentVersion(major: 1, minor: 0), DocumentVersion(major: 2, minor: 1)])
            #expect(after.2 == false)
            #expect(try await store.upgrade(Memo.self).upgraded.isEmpty)
        }
    }

    func bulkUpgradeFromTwoInstances() async throws {
        try await withStore { store in
            try await store.write { transaction in
                for index in 0..<60 {
                    try await transaction.save(
                        envelope: Memo.envelope(major: 1, minor: 0, ["title": .string("\(index)"), "text": "t"]),
                        key: String(format: "k%03d", index), in: Memo.collection)
                }
            }
            let other = try await reopen(store, Self.configuration())
            async let first = store.upgrade(Memo.self, batchSize: 7)
            async let second = other.upgrade(Memo.self, batchSize: 5)
            let reports = try await [first, second]
            await close(other)
            // Each stale document was upgraded by exactly one of them, once.
            let upgraded = reports.flatMap(\.upgraded)
            #expect(upgraded.count == 60, "\(engine)")
            #expect(Set(upgraded).count == 60)
            #expect(reports.allSatisfy { $0.quarantined.isEmpty })
            let histories = try await store.read { transaction in
                var revisions: [[Int]] = []
                for key in try await transaction.keys(in: Memo.collection) {
                    revisions.append(try await transaction.history(in: Memo.collection, key: key).map(\.revision))
                }
                return revisions
            }
            #expect(histories.allSatisfy { $0 == [1, 2] })
        }
    }

    func reservedKeysAndNames() async throws {
        try await withStore { store in
            try await expectError(.invalidName) {
                _ = try await store.write { try await $0.save(Memo(title: "x"), key: "") }
            }
            try await expectError(.invalidName) {
                _ = try await store.write { try await $0.save(Memo(title: "x"), key: "a\u{0}b") }
            }
            try await expectError(.reservedKey) {
                _ = try await store.write {
                    try await $0.save(
                        envelope: Memo.envelope(major: 2, minor: 1, ["title": "x", "body": "", "hangarKey": "k"]),
                        key: "r", in: Memo.collection)
                }
            }
            try await expectError(.invalidDocument) {
                _ = try await store.write { try await $0.save(envelope: ["title": "no version"], key: "r", in: "c") }
            }
            #expect(try await store.read { try await $0.count(in: Memo.collection) } == 0)
        }
    }
}

/// Runs `body` and expects it to throw a ``HangarError`` with `code`.
func expectError(
    _ code: HangarError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async throws {
    do {
        try await body()
        Issue.record("expected \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as HangarError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
