import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

@testable import HangarPostgres

/// The same random writes through two PostgreSQL stores: one that saves and deletes in one statement
/// (`write_document`, the plpgsql copy of the write procedure) and one that runs the Swift rules statement by
/// statement. Every answer (revision, result or error code) and everything stored after (bodies, revisions,
/// history, index entries, the change feed's order and transactions) is the same.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresOneStatementDifferentialTests {
    static let seed =
        ProcessInfo.processInfo.environment["HANGAR_DIFFERENTIAL_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)

    /// One write of the sequence; `throwsAfter` abandons it after its saves.
    struct Operation: Sendable, CustomStringConvertible {
        enum Step: Sendable {
            case save(key: String, title: String, expected: Int?, newerMajor: Bool)
            case delete(key: String, expected: Int?)
            case restore(key: String, revision: Int)
        }
        var steps: [Step]
        var throwsAfter: Bool

        var description: String { "\(steps)\(throwsAfter ? ", then throw" : "")" }

        static func random(using generator: inout SeededGenerator) -> Operation {
            func step() -> Step {
                let key = "k\(Int.random(in: 0..<5, using: &generator))"
                let expected = Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator)
                switch Int.random(in: 0..<10, using: &generator) {
                case 0...5:
                    return .save(
                        key: key, title: "t\(Int.random(in: 0..<8, using: &generator))", expected: expected,
                        newerMajor: Int.random(in: 0..<8, using: &generator) == 0)
                case 6...7: return .delete(key: key, expected: expected)
                default: return .restore(key: key, revision: Int.random(in: 1...3, using: &generator))
                }
            }
            let count = Int.random(in: 0..<4, using: &generator) == 0 ? 2 : 1
            return Operation(
                steps: (0..<count).map { _ in step() }, throwsAfter: Int.random(in: 0..<10, using: &generator) == 0)
        }

        /// Runs a single save or delete through the store's own single writes (one statement in autocommit when
        /// the store writes in one statement), anything else in a write transaction.
        func run(on store: PostgresStore) async throws -> String {
            guard steps.count == 1, !throwsAfter, let step = steps.first else {
                return try await store.write { try await run(on: $0) }
            }
            switch step {
            case .save(let key, let title, let expected, let newerMajor):
                return
                    "\(try await store.save(envelope: Self.envelope(key, title, newerMajor), key: key, in: "notes", expectedRevision: expected))"
            case .delete(let key, let expected):
                return "\(try await store.delete(key: key, in: "notes", expectedRevision: expected))"
            case .restore:
                return try await store.write { try await run(on: $0) }
            }
        }

        static func envelope(_ key: String, _ title: String, _ newerMajor: Bool) -> PropertyList {
            [
                "majorVersion": .integer(.init(newerMajor ? 3 : 2)), "minorVersion": 1, "title": .string(title),
                "body": .string(key),
            ]
        }

        func run(on writer: PostgresWriteTransaction) async throws -> String {
            var answers: [String] = []
            for step in steps {
                switch step {
                case .save(let key, let title, let expected, let newerMajor):
                    let envelope = Self.envelope(key, title, newerMajor)
                    answers.append(
                        "\(try await writer.save(envelope: envelope, key: key, in: "notes", expectedRevision: expected))"
                    )
                case .delete(let key, let expected):
                    answers.append("\(try await writer.delete(key: key, in: "notes", expectedRevision: expected))")
                case .restore(let key, let revision):
                    answers.append("\(try await writer.restore(key: key, in: "notes", revision: revision))")
                }
            }
            if throwsAfter { throw Abandoned() }
            return answers.joined(separator: " ")
        }
    }

    struct Abandoned: Error {}

    @Test func oneStatementAndStatementByStatementEndTheSame() async throws {
        var generator = SeededGenerator(seed: Self.seed)
        let operations = (0..<150).map { _ in Operation.random(using: &generator) }
        var states: [[String]] = []
        var answerLists: [[String]] = []
        for oneStatement in [true, false] {
            var configuration = noteConfiguration(
                CollectionOptions(history: .keepLast(2), indexes: [.path("title", unique: true)]))
            configuration.changeRetention = .keepAll
            let postgres = try testConfiguration("differential") {
                $0.store = configuration
                $0.writesPlansInOneStatement = oneStatement
            }
            let store = try await PostgresStore(configuration: postgres)
            do {
                var answers: [String] = []
                for operation in operations {
                    do {
                        answers.append(try await operation.run(on: store))
                    } catch let error as HangarError {
                        answers.append("\(error.code)")
                    } catch is Abandoned {
                        answers.append("abandoned")
                    }
                }
                answerLists.append(answers)
                states.append(try await Self.state(of: store))
            } catch {
                await store.close()
                try? await dropSchema(of: postgres)
                throw error
            }
            await store.close()
            try await dropSchema(of: postgres)
        }
        for (index, (one, alone)) in zip(answerLists[0], answerLists[1]).enumerated() where one != alone {
            Issue.record(
                "seed \(Self.seed), #\(index) \(operations[index]): one statement \(one), by statement \(alone)")
        }
        #expect(states[0] == states[1], "seed \(Self.seed)")
        #expect(answerLists[0].contains("conflict"))
        #expect(answerLists[0].contains("duplicate"))
        #expect(states[0].count > 20)
    }

    /// Everything the store holds, as lines: each key's kept revisions with their bodies, the title index and
    /// the feed (sequence, key, revision, kind, and which changes share a transaction).
    static func state(of store: PostgresStore) async throws -> [String] {
        try await store.read { reader in
            var lines: [String] = []
            for key in try await reader.keys(in: "notes") {
                for info in try await reader.history(in: "notes", key: key) {
                    let stored = try await reader.document(in: "notes", key: key, revision: info.revision)
                    lines.append(
                        "\(key)@\(info.revision) \(info.version) current=\(info.isCurrent) \(stored?.body ?? [])")
                }
            }
            for title in (0..<8).map({ "t\($0)" }) {
                let keys = try await reader.keys(in: "notes", index: "title", equalTo: .string(title))
                if !keys.isEmpty { lines.append("title \(title): \(keys)") }
            }
            var previous: Int?
            for change in try await reader.changes(since: 0, in: nil, limit: nil) {
                let together = previous == change.transaction ? " (same transaction)" : ""
                lines.append("change \(change.sequence) \(change.key)@\(change.revision) \(change.kind)\(together)")
                previous = change.transaction
            }
            return lines
        }
    }
}
