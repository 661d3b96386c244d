import Hangar
import HangarTestSupport
import PostgresNIO
import Testing

@testable import HangarPostgres

/// The gap-free change sequence, against the real server.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresChangeRecorderTests {
    struct Planned: Error {}

    @Test func concurrentWritersSomeRollingBackLeaveContiguousSequences() async throws {
        try await withTestEngine(configure: { $0.poolSize = 6 }) { engine in
            let writers = 6
            let transactionsEach = 12
            // The keys of each committed transaction, in the order it recorded them.
            let committed = try await withThrowingTaskGroup(of: [[String]].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var mine: [[String]] = []
                        for number in 0..<transactionsEach {
                            let changes = 1 + (writer + number) % 3
                            let rollBack = (writer * transactionsEach + number) % 4 == 0
                            let keys = (0..<changes).map { "w\(writer)-t\(number)-c\($0)" }
                            do {
                                try await engine.withTransaction { transaction in
                                    for key in keys {
                                        try await insertDocument(key, in: transaction)
                                        recordSave(key, in: transaction)
                                    }
                                    if rollBack { throw Planned() }
                                }
                                mine.append(keys)
                            } catch is Planned {}
                        }
                        return mine
                    }
                }
                var all: [[String]] = []
                for try await mine in group { all += mine }
                return all
            }
            let rows = try await engine.withTransaction(.read) { transaction in
                try await transaction.query(
                    "SELECT sequence, transaction_id, key FROM \(transaction.sql.quotedSchema).changes ORDER BY sequence"
                ).map { try $0.decode((Int64, Int64, String).self) }
            }
            let total = committed.reduce(0) { $0 + $1.count }
            #expect(rows.map { Int($0.0) } == Array(1...total))
            // Each committed transaction's changes are contiguous, in its order, under one id: its first sequence.
            let byTransaction = Dictionary(grouping: rows, by: \.1)
            #expect(byTransaction.count == committed.count)
            #expect(byTransaction.allSatisfy { id, changes in changes.first?.0 == id })
            let recorded = Set(byTransaction.values.map { $0.map(\.2) })
            #expect(recorded == Set(committed))
            for changes in byTransaction.values {
                let sequences = changes.map(\.0)
                #expect(sequences == Array(sequences[0]..<(sequences[0] + Int64(sequences.count))))
            }
            let counter = try await engine.withTransaction(.read) { transaction in
                try await transaction.query(transaction.sql.changes.counter).first?.decode((Int64, Int64, Int64).self)
            }
            #expect(counter?.0 == Int64(total))
            #expect(counter?.1 == byTransaction.keys.max())
        }
    }

    @Test func aRolledBackTransactionWritesNoChangeAndLeavesTheCounter() async throws {
        try await withTestEngine { engine in
            await #expect(throws: Planned.self) {
                try await engine.withTransaction { transaction in
                    try await insertDocument("ghost", in: transaction)
                    recordSave("ghost", in: transaction)
                    throw Planned()
                }
            }
            let (last, rows) = try await engine.withTransaction(.read) { transaction in
                (
                    try await transaction.scalar(transaction.sql.changes.counter, as: Int64.self),
                    try await transaction.query("SELECT 1 FROM \(transaction.sql.quotedSchema).changes").count
                )
            }
            #expect(last == 0)
            #expect(rows == 0)
        }
    }

    @Test func retentionPrunesTheOldestChanges() async throws {
        try await withTestEngine(configure: { $0.store.changeRetention = ChangeRetention(maximumCount: 3) }) {
            engine in
            for number in 0..<5 {
                try await engine.withTransaction { transaction in
                    try await insertDocument("k\(number)", in: transaction)
                    recordSave("k\(number)", in: transaction)
                }
            }
            let (sequences, counter) = try await engine.withTransaction(.read) { transaction in
                let sequences = try await transaction.query(
                    "SELECT sequence FROM \(transaction.sql.quotedSchema).changes ORDER BY sequence"
                ).map { try $0.decode(Int64.self) }
                let counter = try await transaction.query(transaction.sql.changes.counter).first?.decode(
                    (Int64, Int64, Int64).self)
                return (sequences, counter)
            }
            #expect(sequences == [3, 4, 5])
            #expect(counter?.2 == 2)
        }
    }
}

/// Notes a save of `key` in pilots at revision 1, version 1.0, as a write transaction's save does.
func recordSave(_ key: String, in transaction: PostgresTransaction) {
    transaction.changes.record(
        .save, collection: "pilots", key: key, revision: 1, version: DocumentVersion(major: 1, minor: 0),
        classTag: nil)
}
