import Foundation
import Hangar
import PropertyList
import Testing

extension StoreBehaviour {
    /// The store's own single writes (`DocumentStore.save`, `save(envelope:)`, `delete`), which an engine may run
    /// in a cheaper way than a transaction (PostgreSQL: one statement), keep every rule a transaction's do:
    /// revisions, expected-revision conflicts, a newer minor's keys kept by a model save, a newer major refused
    /// and untouched, unique values, history and the feed.
    func singleWritesKeepTheRules() async throws {
        var configuration = Self.configuration()
        configuration.collections[Memo.collection] = CollectionOptions(
            history: .keepLast(2), indexes: [.path("title", unique: true)])
        try await withStore(configuration) { store in
            #expect(try await store.save(Memo(title: "a"), key: "a") == 1)
            #expect(try await store.save(Memo(title: "a2"), key: "a", expectedRevision: 1) == 2)
            await expectCode(.conflict) { try await store.save(Memo(title: "a3"), key: "a", expectedRevision: 1) }
            await expectCode(.duplicate) { try await store.save(Memo(title: "a2"), key: "b") }
            // A model save over a stored newer minor keeps the keys this code does not know.
            let newer = Memo.envelope(major: 2, minor: 5, ["title": "n", "body": "b", "colour": "red"])
            #expect(try await store.save(envelope: newer, key: "n", in: Memo.collection, expectedRevision: 0) == 1)
            #expect(try await store.save(Memo(title: "n2"), key: "n") == 2)
            let kept = try await store.document(in: Memo.collection, key: "n")
            #expect(try kept?.envelope().dictionaryValue?["colour"] == "red", "\(engine)")
            #expect(kept?.version == DocumentVersion(major: 2, minor: 5))
            // A newer major is refused and left as it is, by a save and by a delete.
            let future = Memo.envelope(major: 9, minor: 0, ["title": "f"])
            try await store.write { try await $0.save(envelope: future, key: "f", in: Memo.collection) }
            await expectCode(.newerMajor) { try await store.save(Memo(title: "f2"), key: "f") }
            #expect(try await store.document(in: Memo.collection, key: "f")?.revision == 1)
            // Deletes: a stale revision is a conflict, a missing document is false, revisions are not reused.
            await expectCode(.conflict) { try await store.delete(key: "a", in: Memo.collection, expectedRevision: 1) }
            #expect(try await store.delete(key: "a", in: Memo.collection, expectedRevision: 2))
            #expect(try await !store.delete(key: "a", in: Memo.collection, expectedRevision: nil))
            #expect(try await store.save(Memo(title: "a again"), key: "a") == 3)
            let history = try await store.read { try await $0.history(in: Memo.collection, key: "a") }
            #expect(history.map(\.revision) == [1, 2, 3], "\(engine)")
            let changes = try await store.read { try await $0.changes(since: 0, in: nil, limit: nil) }
            #expect(
                changes.map { "\($0.key)@\($0.revision) \($0.kind)" } == [
                    "a@1 save", "a@2 save", "n@1 save", "n@2 save", "f@1 save", "a@2 delete", "a@3 save",
                ], "\(engine)")
            #expect(Set(changes.map(\.transaction)).count == changes.count)
        }
    }

    /// Expects `body` to throw a ``HangarError`` with `code`.
    func expectCode(
        _ code: HangarError.Code, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> some Any
    ) async {
        do {
            _ = try await body()
            Issue.record("expected \(code), nothing thrown (\(engine))", sourceLocation: sourceLocation)
        } catch let error as HangarError {
            #expect(error.code == code, "\(engine): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error) (\(engine))", sourceLocation: sourceLocation)
        }
    }
}
