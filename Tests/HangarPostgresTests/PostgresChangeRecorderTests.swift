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
            // (writer, transaction) → the sequences a committed transaction was given.
            let committed = try await withThrowingTaskGroup(of: [[Int]].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var mine: [[Int]] = []
                        for number in 0..<transactionsEach {
                            let changes = 1 + (writer + number) % 3
                            let rollBack = (writer * transactionsEach + number) % 4 == 0
                            do {
                                let sequences = try await engine.withTransaction { transaction in
                                    var sequences: [Int] = []
                                    for change in 0..<changes {
                                        let key = "w\(writer)-t\(number)-c\(change)"
                                        try await insertDocument(key, in: transaction)
                                        sequences.append(
                                            try await transaction.changes.record(
                                                .save, collection: "pilots", key: key, in: transaction))
                                    }
                                    if rollBack { throw Planned() }
                                    return sequences
                                }
                                mine.append(sequences)
                            } catch is Planned {}
                        }
                        return mine
                    }
                }
                var all: [[Int]] = []
                for try await mine in group { all += mine }
                return all
            }
            let rows = try await engine.withTransaction(.read) { transaction in
                try await transaction.query(
                    "SELECT sequence, transaction_id FROM \(transaction.sql.quotedSchema).changes ORDER BY sequence"
                ).map { try $0.decode((Int64, Int64).self) }
            }
            let total = committed.reduce(0) { $0 + $1.count }
            #expect(rows.map { Int($0.0) } == Array(1...total))
            // Each transaction's sequences are contiguous, and transaction ids have no gaps either.
            for sequences in committed { #expect(sequences == Array(sequences[0]..<(sequences[0] + sequences.count))) }
            #expect(Set(rows.map(\.1)) == Set(Int64(1)...Int64(committed.count)))
            let counter = try await engine.withTransaction(.read) { transaction in
                try await transaction.query(transaction.sql.changes.counter).first?.decode((Int64, Int64, Int64).self)
            }
            #expect(counter?.0 == Int64(total))
            #expect(counter?.1 == Int64(committed.count))
        }
    }

    @Test func recordingAMissingDocumentFailsAndRecordsNothing() async throws {
        try await withTestEngine { engine in
            do {
                _ = try await engine.withTransaction { transaction in
                    try await transaction.changes.record(.save, collection: "pilots", key: "ghost", in: transaction)
                }
                Issue.record("a change of no document was recorded")
            } catch let error as HangarError {
                #expect(error.code == .database)
            }
            let last = try await engine.withTransaction(.read) { transaction in
                try await transaction.scalar(transaction.sql.changes.counter, as: Int64.self)
            }
            #expect(last == 0)
        }
    }

    @Test func retentionPrunesTheOldestChanges() async throws {
        try await withTestEngine(configure: { $0.store.changeRetention = ChangeRetention(maximumCount: 3) }) {
            engine in
            for number in 0..<5 {
                try await engine.withTransaction { transaction in
                    try await insertDocument("k\(number)", in: transaction)
                    try await transaction.changes.record(
                        .save, collection: "pilots", key: "k\(number)", in: transaction)
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
