import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Synchronization
import Testing

@testable import HangarSQLite

/// The same random writes, in the same order, through two stores: one whose queued writes share commits and one
/// whose writes each commit alone. Every answer (revision or error code) and everything stored after (bodies,
/// revisions, history, index entries, the change feed with its sequences and transactions) is the same.
@Suite struct SQLiteGroupCommitDifferentialTests {
    static let seed =
        ProcessInfo.processInfo.environment["HANGAR_DIFFERENTIAL_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)

    /// One write of the sequence.
    enum Operation: Sendable, CustomStringConvertible {
        case save(key: String, title: String, expected: Int?)
        case delete(key: String, expected: Int?)
        case restore(key: String, revision: Int)
        case saveTwo(String, String, title: String)
        case saveThenThrow(key: String, title: String)

        var description: String {
            switch self {
            case .save(let key, let title, let expected):
                "save \(key) \(title) expecting \(expected.map(String.init) ?? "-")"
            case .delete(let key, let expected): "delete \(key) expecting \(expected.map(String.init) ?? "-")"
            case .restore(let key, let revision): "restore \(key)@\(revision)"
            case .saveTwo(let first, let second, let title): "save \(first) and \(second) \(title)"
            case .saveThenThrow(let key, let title): "save \(key) \(title), then throw"
            }
        }

        static func random(using generator: inout SeededGenerator) -> Operation {
            func key() -> String { "k\(Int.random(in: 0..<5, using: &generator))" }
            func title() -> String { "t\(Int.random(in: 0..<8, using: &generator))" }
            func expected() -> Int? {
                Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator)
            }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0...3: return .save(key: key(), title: title(), expected: expected())
            case 4: return .delete(key: key(), expected: expected())
            case 5: return .restore(key: key(), revision: Int.random(in: 1...3, using: &generator))
            case 6...7: return .saveTwo(key(), key(), title: title())
            default: return .saveThenThrow(key: key(), title: title())
            }
        }

        func run(on transaction: SQLiteWriteTransaction, answer: Answer) throws {
            let text: String
            switch self {
            case .save(let key, let title, let expected):
                text = "\(try transaction.save(Note(title: title, body: key), key: key, expectedRevision: expected))"
            case .delete(let key, let expected):
                text = "\(try transaction.delete(key: key, in: "notes", expectedRevision: expected))"
            case .restore(let key, let revision):
                text = "\(try transaction.restore(key: key, in: "notes", revision: revision))"
            case .saveTwo(let first, let second, let title):
                let one = try transaction.save(Note(title: title, body: first), key: first)
                let two = try transaction.save(Note(title: title + "'", body: second), key: second)
                text = "\(one) \(two)"
            case .saveThenThrow(let key, let title):
                try transaction.save(Note(title: title, body: key), key: key)
                throw AbandonedWrite()
            }
            answer.set(text)
        }
    }

    @Test func groupedAndUngroupedWritesEndTheSame() async throws {
        var generator = SeededGenerator(seed: Self.seed)
        let operations = (0..<120).map { _ in Operation.random(using: &generator) }
        let options = CollectionOptions(history: .keepLast(2), indexes: [.path("title", unique: true)])
        let grouped = try SQLiteGroupCommitTests.store(options)
        let alone = try SQLiteGroupCommitTests.store(options, groupCommit: .off)
        let groupedAnswers = try await Self.run(operations, on: grouped)
        let aloneAnswers = try await Self.run(operations, on: alone)
        for (index, (mine, theirs)) in zip(groupedAnswers, aloneAnswers).enumerated() where mine != theirs {
            Issue.record("seed \(Self.seed), #\(index) \(operations[index]): grouped \(mine), alone \(theirs)")
        }
        let groupedState = try await Self.state(of: grouped)
        let aloneState = try await Self.state(of: alone)
        #expect(groupedState == aloneState, "seed \(Self.seed)")
        // The sequence did real work of every kind.
        #expect(groupedAnswers.contains { $0.hasPrefix("conflict") })
        #expect(groupedAnswers.contains { $0.hasPrefix("duplicate") })
        #expect(groupedAnswers.contains { $0 == "abandoned" })
        #expect(groupedState.count > 20)
    }

    /// Runs `operations` in groups of four (the first holding the writer until the others queue); returns
    /// each one's answer: what it returned, or its error's code.
    static func run(_ operations: [Operation], on store: SQLiteStore) async throws -> [String] {
        var answers: [String] = []
        for start in stride(from: 0, to: operations.count, by: 4) {
            let batch = Array(operations[start..<min(start + 4, operations.count)])
            let texts = batch.map { _ in Answer() }
            let writes: [GroupedWrite] = zip(batch, texts).map { operation, text in
                { try operation.run(on: $0, answer: text) }
            }
            let results: [Result<Void, any Error>]
            if writes.count >= 2 {
                results = try await runInOneGroup(store, writes)
            } else {
                results = [await Result(catching: { try await store.write { try writes[0]($0) } })]
            }
            for (result, text) in zip(results, texts) {
                switch result {
                case .success: answers.append(text.text)
                case .failure(let error as HangarError): answers.append("\(error.code)")
                case .failure(is AbandonedWrite): answers.append("abandoned")
                case .failure(let error): answers.append("other: \(error)")
                }
            }
        }
        return answers
    }

    /// Everything the store holds, as lines: each key's kept revisions with their bodies, the title index, and
    /// the change feed (sequence, transaction, key, revision, kind).
    static func state(of store: SQLiteStore) async throws -> [String] {
        try await store.read { transaction in
            var lines: [String] = []
            for key in try transaction.keys(in: "notes") {
                for info in try transaction.history(in: "notes", key: key) {
                    let body = try transaction.document(in: "notes", key: key, revision: info.revision)?.body ?? []
                    lines.append("\(key)@\(info.revision) current=\(info.isCurrent) \(body)")
                }
            }
            for title in (0..<8).flatMap({ ["t\($0)", "t\($0)'"] }) {
                let keys = try transaction.keys(in: "notes", index: "title", equalTo: .string(title))
                if !keys.isEmpty { lines.append("title \(title): \(keys)") }
            }
            for change in try transaction.changes(since: 0) {
                lines.append(
                    "change \(change.sequence) tx \(change.transaction) \(change.key)@\(change.revision) \(change.kind)"
                )
            }
            return lines
        }
    }
}

/// What one write returned, set inside its body.
final class Answer: Sendable {
    private let value = Mutex("")
    var text: String { value.withLock { $0 } }
    func set(_ text: String) { value.withLock { $0 = text } }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
