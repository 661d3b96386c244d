import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import PropertyList
import Synchronization
import Testing

/// `base` (a server URL without a query) with a schema and an application name, so a test's connections can be
/// found (and ended) by name without touching another test's.
func postgresURL(_ base: String, schema: String, applicationName: String) -> String {
    base + (base.contains("?") ? "&" : "?") + "schema=\(schema)&application_name=\(applicationName)"
}

/// A name no other test run uses at the same time, for `application_name`.
func uniqueApplicationName(_ label: String) -> String {
    "hangar_\(label)_\(ProcessInfo.processInfo.processIdentifier)_\(UInt32.random(in: 0...UInt32.max))"
}

/// Lowercase hexadecimal digits of `bytes`, as `hangar-stress` prints them.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

/// A flag set by one task and read by others.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A count several tasks add to.
final class SharedCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func add(_ amount: Int) { count.add(amount, ordering: .acquiringAndReleasing) }
}

/// A directory of its own under the temporary directory, for one test.
func temporaryTestDirectory(_ label: String) throws -> String {
    try ScratchFolders.make("hangar-\(label)")
}

/// What one ``runFaultWriter(_:name:keys:stop:tail:)`` saw.
struct FaultWriterReport: Sendable {
    /// Every save known to be stored: key, revision, body.
    var acknowledged: [(key: String, revision: Int, body: [UInt8])] = []
    /// Failures by code (connectionLost, outcomeUnknown, …).
    var failures: [String: Int] = [:]
    /// Outcome-unknown saves a retry with the expected revision found committed, and found not committed.
    var unknownCommitted = 0
    var unknownNotCommitted = 0
    /// Saves acknowledged after the faults stopped (each must succeed at once).
    var tailSaves = 0
    /// What must not happen: an untyped error, a rolled-back save found committed, a failure after the faults.
    var problems: [String] = []
}

/// One writer of the fault tests: saves to its own documents of collection "ledger" (nobody else writes them),
/// each save in a transaction of its own with the revision it last stored as the expected revision, until `stop`
/// is set; then `tail` more saves, each of which must succeed at the first try (the pool has reconnected).
///
/// Every failure must be a typed ``HangarError``: ``HangarError/Code/connectionLost`` (rolled back: the same
/// save with the same expected revision then succeeds; a conflict would mean it committed after all), or
/// ``HangarError/Code/outcomeUnknown``, which ``resolveUnknownOutcome(_:key:expectedRevision:envelope:)``
/// settles.
func runFaultWriter(
    _ store: PostgresStore, name: String, keys: [String], stop: Flag, tail: Int
) async -> FaultWriterReport {
    var report = FaultWriterReport()
    var revisions = Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) })
    var number = 0
    var remainingTail = tail
    while remainingTail > 0 {
        let inTail = stop.isSet
        number += 1
        let key = keys[number % keys.count]
        let expected = revisions[key] ?? 0
        let envelope = faultEnvelope(writer: name, number: number, key: key, revision: expected + 1)
        do {
            let revision = try await store.write { transaction in
                try await transaction.save(envelope: envelope, key: key, in: "ledger", expectedRevision: expected)
            }
            revisions[key] = revision
            report.acknowledged.append((key, revision, try envelope.encoded(as: .binary)))
            if inTail {
                report.tailSaves += 1
                remainingTail -= 1
            }
        } catch let error as HangarError {
            report.failures[error.code.description, default: 0] += 1
            if inTail { report.problems.append("\(name): a save after the faults failed: \(error)") }
            switch error.code {
            case .connectionLost:
                // Rolled back: the same save is tried again (after a moment, the server may be restarting).
                try? await Task.sleep(for: .milliseconds(10))
            case .outcomeUnknown:
                let settled = await resolveUnknownOutcome(
                    store, key: key, expectedRevision: expected, envelope: envelope)
                switch settled {
                case .committed(let revision, let body):
                    report.unknownCommitted += 1
                    revisions[key] = revision
                    report.acknowledged.append((key, revision, body))
                case .notCommittedSavedNow(let revision, let body):
                    report.unknownNotCommitted += 1
                    revisions[key] = revision
                    report.acknowledged.append((key, revision, body))
                case .failed(let problem):
                    report.problems.append("\(name): \(problem)")
                }
            case .conflict:
                report.problems.append("\(name): a save rolled back by a lost connection had committed: \(error)")
                return report
            default:
                report.problems.append("\(name): an unexpected failure: \(error)")
                try? await Task.sleep(for: .milliseconds(20))
            }
        } catch {
            report.problems.append("\(name): an error that is not a HangarError: \(error)")
            return report
        }
    }
    return report
}

/// The body every fault writer saves: who wrote it, and where.
func faultEnvelope(writer: String, number: Int, key: String, revision: Int) -> PropertyList {
    .dictionary([
        "majorVersion": 1, "minorVersion": 0, "writer": .string(writer), "n": .integer(.init(number)),
        "key": .string(key), "revision": .integer(.init(revision)),
    ])
}

/// How a save whose outcome was unknown turned out.
enum SettledOutcome: Sendable {
    /// It had committed, at this revision with this body (the retry met a conflict).
    case committed(revision: Int, body: [UInt8])
    /// It had not: the retry saved it now, at this revision.
    case notCommittedSavedNow(revision: Int, body: [UInt8])
    /// The retry could not settle it.
    case failed(String)
}

/// Settles an ``HangarError/Code/outcomeUnknown`` save of `envelope` that expected `expectedRevision`, as an
/// app does: saves the same envelope again with the same expected revision. A conflict means the first save
/// committed (nobody else writes the document: the stored revision after it must hold `envelope`); success means
/// it had not (and now has). A lost connection on the retry is retried.
func resolveUnknownOutcome(
    _ store: PostgresStore, key: String, expectedRevision: Int, envelope: PropertyList
) async -> SettledOutcome {
    let body: [UInt8]
    do {
        body = try envelope.encoded(as: .binary)
    } catch {
        return .failed("the envelope does not encode: \(error)")
    }
    for _ in 0..<100 {
        do {
            let revision = try await store.write { transaction in
                try await transaction.save(
                    envelope: envelope, key: key, in: "ledger", expectedRevision: expectedRevision)
            }
            return .notCommittedSavedNow(revision: revision, body: body)
        } catch HangarError.conflict {
            let stored = try? await store.read { transaction in
                try await transaction.document(in: "ledger", key: key, revision: expectedRevision + 1)?.body
            }
            guard stored == body else {
                return .failed("\(key): conflict on retry, but revision \(expectedRevision + 1) is not the save")
            }
            return .committed(revision: expectedRevision + 1, body: body)
        } catch let error as HangarError where error.code == .connectionLost || error.code == .outcomeUnknown {
            try? await Task.sleep(for: .milliseconds(20))
        } catch {
            return .failed("\(key): the retry failed: \(error)")
        }
    }
    return .failed("\(key): the retry never reached the server")
}

/// Checks the fault writers' documents in `store`: each one's history is contiguous from 1 and every revision
/// is an acknowledged save, byte for byte (so nothing acknowledged was lost and nothing unacknowledged
/// committed). Returns the problems and how many revisions were checked.
func verifyFaultWriters(_ reports: [FaultWriterReport], in store: PostgresStore) async throws -> ([String], Int) {
    var expected: [String: [Int: [UInt8]]] = [:]
    for report in reports {
        for save in report.acknowledged { expected[save.key, default: [:]][save.revision] = save.body }
    }
    let snapshot = try await store.read { transaction in
        var stored: [String: [Int: [UInt8]]] = [:]
        for key in expected.keys {
            for info in try await transaction.history(in: "ledger", key: key) {
                stored[key, default: [:]][info.revision] =
                    try await transaction.document(in: "ledger", key: key, revision: info.revision)?.body
            }
        }
        return stored
    }
    var problems: [String] = []
    var checked = 0
    for (key, saves) in expected {
        let stored = snapshot[key] ?? [:]
        let last = saves.keys.max() ?? 0
        if Set(saves.keys) != Set(1...max(1, last)) || Set(stored.keys) != Set(saves.keys) {
            problems.append("\(key): acknowledged \(saves.keys.sorted()), stored \(stored.keys.sorted())")
        }
        for (revision, body) in saves {
            checked += 1
            if stored[revision] != body { problems.append("\(key)@\(revision): acknowledged but not stored as saved") }
        }
    }
    return (problems, checked)
}
