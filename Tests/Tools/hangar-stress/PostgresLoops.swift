// hangar-stress's `--url` forms: the save and feed loops against a PostgresStore, so that several processes
// (instances of an app) write to one server at once, and the tests kill them (Tests/HangarPostgresTests).
//
//   hangar-stress save-loop --url URL RUN-ID SEED COUNT
//   hangar-stress feed-loop --url URL SEED COUNT
//
// The URL names the schema (`?schema=`) and usually an `application_name`. COUNT transactions are committed
// (0: until killed), then `done RETRIES` is printed and the process exits with status 0. Unlike the SQLite
// loops, other processes write the same documents: every save names the revision it read as its expected
// revision (a delete too), and a transaction that meets a conflict (or loses a deadlock) is run again from the
// start, never acknowledged twice; RETRIES counts those runs. Members are written in key order, so the
// processes' row locks never deadlock.

import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import PropertyList

/// The stress store on PostgreSQL, or the process ends with the reason (never the URL: it may hold a password).
func openPostgres(_ url: String, feed: Bool = false) async -> PostgresStore {
    var configuration = stressConfiguration()
    if feed { configuration.collections["feed"] = CollectionOptions() }
    do {
        return try await PostgresStore(url: url, store: configuration)
    } catch {
        fail("cannot open the PostgreSQL store: \(error)")
    }
}

/// Whether running the transaction again may succeed: it met a conflict or lost to a concurrent transaction.
func isRetryable(_ error: any Error) -> Bool {
    guard let error = error as? HangarError else { return false }
    return error.code == .conflict || error.code == .serializationFailure
}

// MARK: save-loop --url

/// One 1- or 3-document transaction of the save loop: the targets (in key order) and their payloads.
struct PlannedSave {
    let transactionID: String
    let targets: [Target]
    let payloads: [[UInt8]]
}

func postgresSaveLoop(url: String, runID: String, seed: UInt64, count: Int) async {
    let store = await openPostgres(url)
    let targets =
        (0..<12).map { Target(collection: "ledger", key: "k\($0)") }
        + (0..<6).map { Target(collection: "recent", key: "r\($0)") }
    var generator = SeededGenerator(seed: seed)
    emit("ready")
    var retries = 0
    var sequence = 0
    while count == 0 || sequence < count {
        sequence += 1
        let size = Bool.random(using: &generator) ? 1 : 3
        var chosen: [Target] = []
        while chosen.count < size {
            let target = targets[Int.random(in: 0..<targets.count, using: &generator)]
            if !chosen.contains(target) { chosen.append(target) }
        }
        chosen.sort { ($0.collection, $0.key) < ($1.collection, $1.key) }
        let plan = PlannedSave(
            transactionID: "\(runID)-\(sequence)", targets: chosen,
            payloads: chosen.map { _ in randomBytes(Int.random(in: 0...200, using: &generator), using: &generator) })
        while true {
            do {
                let saved = try await save(plan, in: store)
                emit(
                    "ack \(plan.transactionID) "
                        + saved.map { "\($0.0.collection)/\($0.0.key)@\($0.1)=\(hex($0.2))" }.joined(separator: " "))
                break
            } catch let error where isRetryable(error) {
                retries += 1
            } catch {
                fail("write \(plan.transactionID) failed: \(error)")
            }
        }
    }
    emit("done \(retries)")
    await store.close()
    exit(0)
}

/// Runs one planned transaction: reads each member's revision, names every member in every document, saves each
/// with the revision read as its expected revision. Returns what was saved (target, revision, envelope bytes).
func save(_ plan: PlannedSave, in store: PostgresStore) async throws -> [(Target, Int, [UInt8])] {
    try await store.write { transaction -> [(Target, Int, [UInt8])] in
        var revisions: [Int] = []
        for target in plan.targets {
            revisions.append(
                (try await transaction.document(in: target.collection, key: target.key)?.revision ?? 0) + 1)
        }
        let members: [PropertyList] = zip(plan.targets, revisions).map { target, revision in
            .string("\(target.collection)/\(target.key)@\(revision)")
        }
        var saved: [(Target, Int, [UInt8])] = []
        for (index, target) in plan.targets.enumerated() {
            let envelope: PropertyList = .dictionary([
                "majorVersion": 1, "minorVersion": 0,
                "tx": .string(plan.transactionID),
                "key": .string(target.key),
                "revision": .integer(.init(revisions[index])),
                "members": .array(members),
                "payload": .data(plan.payloads[index]),
            ])
            let revision = try await transaction.save(
                envelope: envelope, key: target.key, in: target.collection, expectedRevision: revisions[index] - 1)
            guard revision == revisions[index] else {
                fail("save returned revision \(revision), expected \(revisions[index])")
            }
            saved.append((target, revision, try envelope.encoded(as: .binary)))
        }
        return saved
    }
}

// MARK: feed-loop --url

func postgresFeedLoop(url: String, seed: UInt64, count: Int) async {
    let store = await openPostgres(url, feed: true)
    var generator = SeededGenerator(seed: seed)
    emit("ready")
    var retries = 0
    var done = 0
    while count == 0 || done < count {
        done += 1
        let operations = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
            (key: "k\(Int.random(in: 0..<8, using: &generator))", delete: Int.random(in: 0..<5, using: &generator) == 0)
        }.sorted { $0.key < $1.key }
        let rollBack = Int.random(in: 0..<4, using: &generator) == 0
        while true {
            do {
                let written = try await feedTransaction(operations, number: done, rollBack: rollBack, in: store)
                if !written.isEmpty { emit("ack " + written.joined(separator: " ")) }
                break
            } catch is RolledBack {
                break
            } catch let error where isRetryable(error) {
                retries += 1
            } catch {
                fail("feed transaction \(done) failed: \(error)")
            }
        }
    }
    emit("done \(retries)")
    await store.close()
    exit(0)
}

/// One transaction of the feed loop; returns its changes as `feed/KEY@REVISION:KIND`.
func feedTransaction(
    _ operations: [(key: String, delete: Bool)], number: Int, rollBack: Bool, in store: PostgresStore
) async throws -> [String] {
    try await store.write { transaction in
        var written: [String] = []
        for operation in operations {
            if operation.delete {
                // The revision read is the one deleted: another process saving meanwhile is a conflict.
                let revision = try await transaction.document(in: "feed", key: operation.key)?.revision
                if let revision,
                    try await transaction.delete(key: operation.key, in: "feed", expectedRevision: revision)
                {
                    written.append("feed/\(operation.key)@\(revision):delete")
                }
            } else {
                let envelope: PropertyList = .dictionary([
                    "majorVersion": 1, "minorVersion": 0, "n": .integer(.init(number)),
                ])
                let revision = try await transaction.save(envelope: envelope, key: operation.key, in: "feed")
                written.append("feed/\(operation.key)@\(revision):save")
            }
        }
        if rollBack { throw RolledBack() }
        return written
    }
}
