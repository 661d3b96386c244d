import Foundation
import Hangar
import PostgresNIO

/// Writing a plan in one round trip (`write_document`, ``PostgresStoreSQL/WriteStatements``): the common save or
/// delete is one statement instead of the key's lock, the row's read, the history, row and index statements. What
/// the function hands back (a condition the rules must judge) goes on statement by statement, under the key's lock
/// the function took.
extension PostgresWriteTransaction {
    /// What `write_document` did with a plan.
    enum OneStatementWrite {
        /// Written as the rules resolve it (`nil`: a delete of a document that does not exist); `pending`: a
        /// statement on its own left its change pending, to be numbered after it.
        case written(ResolvedWrite?, pending: Bool = false)
        /// Nothing written: the stored row and the key's last revision (0: never saved), read under the key's
        /// lock, which this transaction now holds.
        case handedBack(CurrentRow?, lastEver: Int)
    }

    /// Whether plans go through `write_document`: not when the store seals bodies, as a sealed body depends on
    /// its revision, which only the statement knows, nor when the configuration turns it off
    /// (``PostgresStoreConfiguration/writesPlansInOneStatement``).
    var writesInOneStatement: Bool {
        !writesStatementByStatement && configuration.encryption == nil
            && store.postgresConfiguration.writesPlansInOneStatement
    }

    /// Writes `plan` in one statement, or hands the stored row back when a condition needs the rules; with
    /// `refusingNewerMinor`, a stored newer minor of the plan's major is handed back too (a model's save must keep
    /// its keys). Throws ``Hangar/HangarError/Code/duplicate`` (nothing written) for a unique value another key
    /// holds.
    ///
    /// `alone`: the statement is the whole write, in autocommit (``PostgresTransactionOptions/singleWrite``):
    /// `write_document_alone` notes the change itself, and what it writes is committed when it answers.
    func writeInOneStatement(_ plan: WritePlan, refusingNewerMinor: Bool, alone: Bool = false)
        async throws(HangarError) -> OneStatementWrite
    {
        let (collection, key) = (plan.collection, plan.key)
        let statement = alone ? sql.writes.writeDocumentAlone : sql.writes.writeDocument
        var binds = writeBinds(plan, refusingNewerMinor: refusingNewerMinor)
        if alone {
            let retention = configuration.changeRetention
            binds.append(retention.maximumCount.map { Int64($0) })
            binds.append(retention.maximumAge.map { Date().timeIntervalSince1970 - $0 })
        }
        let found = try await rows(statement, binds) { row in
            try row.decode(
                (String, Int64?, Int64?, Int64?, Int64?, String?, String?, Int64, String?, String?, Int64?).self)
        }
        guard let answer = found.first else {
            throw HangarError(.database, "write_document returned no row", sql: statement)
        }
        let (outcome, revision, currentRevision, major, minor, classTag, keyID, lastEver, index, otherKey, ticket) =
            answer
        var current: CurrentRow?
        if let currentRevision, let major, let minor {
            current = CurrentRow(
                revision: Int(currentRevision), version: DocumentVersion(major: Int(major), minor: Int(minor)),
                classTag: classTag, keyID: keyID)
        }
        switch outcome {
        case "refused":
            return .handedBack(current, lastEver: Int(lastEver))
        case "absent":
            return .written(nil)
        case "duplicate":
            guard let index, let otherKey else { break }
            throw DocumentRules.duplicate(index: index, otherKey: otherKey, collection: collection, key: key)
        case "written":
            let resolved = try confirm(
                plan, revision: revision.map { Int($0) }, current: current, lastEver: Int(lastEver), alone: alone)
            let change = resolved.change
            if alone {
                return .written(resolved, pending: ticket != nil)
            } else {
                transaction.changes.record(
                    change.kind, collection: collection, key: key, revision: change.revision,
                    version: change.version, classTag: change.classTag)
            }
            return .written(resolved)
        default:
            break
        }
        throw HangarError(.database, "write_document answered an unknown outcome \(outcome)", sql: statement)
    }

    /// The rules' resolution of a plan `write_document` wrote, which must give the revision it wrote; otherwise
    /// the transaction is abandoned (rolled back whatever the closure does) and the error thrown. A statement
    /// `alone` has committed already: the error says so (the differential tests hold the two paths equal).
    private func confirm(_ plan: WritePlan, revision: Int?, current: CurrentRow?, lastEver: Int, alone: Bool)
        throws(HangarError) -> ResolvedWrite
    {
        do throws(HangarError) {
            let resolved = try DocumentRules.resolve(
                plan, current: current, lastRevision: { lastEver }, configuration: configuration,
                instruments: store.engine.instruments)
            guard let resolved, resolved.revision == revision else {
                throw HangarError(
                    .database,
                    "write_document wrote revision \(revision.map(String.init) ?? "none") where the rules give "
                        + "\(resolved.map { String($0.revision) } ?? "none")"
                        + (alone ? "; the statement has committed" : "; the transaction is rolled back"),
                    collection: plan.collection, key: plan.key, sql: sql.writes.writeDocument)
            }
            return resolved
        } catch {
            transaction.abandon(because: error)
            throw error
        }
    }

    /// `write_document`'s parameters for `plan` (``PostgresStoreSQL/WriteStatements/writeDocument``).
    private func writeBinds(_ plan: WritePlan, refusingNewerMinor: Bool) -> PostgresBindings {
        var values = binds(plan.collection, plan.key)
        let content = plan.content
        values.append(content != nil)
        values.append(content?.classTag)
        values.append(content.map { Int64($0.version.major) })
        values.append(content.map { Int64($0.version.minor) })
        values.append(content.map { PostgresBytes.bind($0.body) })
        values.append(Date().timeIntervalSince1970)
        values.append(plan.expectedRevision.map { Int64($0) })
        values.append(plan.readableMajor.map { Int64($0) })
        values.append(plan.overwritingNewerMajor)
        values.append(refusingNewerMinor)
        switch plan.history {
        case .keepAll: values.append(Int64?.none)
        case .keepNone: values.append(Int64(0))
        case .keepLast(let count): values.append(Int64(max(0, count)))
        }
        let entries = content?.indexEntries ?? []
        values.append(entries.map(\.name))
        values.append(entries.map { PostgresBytes.bind($0.value) })
        values.append(entries.map(\.unique))
        values.append(configuration.options(for: plan.collection).indexes.map(\.name))
        return values
    }
}
