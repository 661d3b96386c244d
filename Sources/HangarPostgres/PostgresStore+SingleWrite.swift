public import Hangar

// A single write (``Hangar/SingleWrite``: the server's PUT and DELETE, `hangar db put`) is one statement in
// autocommit: `write_document_alone` takes the key's lock, checks the plan's conditions, writes, and notes the
// change, and the statement's end commits it. No `BEGIN`, no `COMMIT`, no separate `note_changes`: one round trip
// where a transaction takes four. Whatever the rules must judge (a conflict, a stored newer major or minor, a sealed
// body, an index not declared) is handed back without writing, and the write runs as a transaction of its own,
// statement by statement, where the rules give the error or the write: `write_document` runs once either way.

extension PostgresStore {
    /// Performs `single` in one statement on its own when it can (see above); otherwise as `transaction`, statement
    /// by statement.
    public func perform(
        _ single: SingleWrite,
        inTransactionOtherwise transaction: (PostgresWriteTransaction) async throws ->
            SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome {
        try await perform(single, token: nil, inTransactionOtherwise: transaction)
    }

    /// ``perform(_:inTransactionOtherwise:)``, returning the token of its commit (read just after it, on the same
    /// connection).
    public func performReturningToken(
        _ single: SingleWrite,
        inTransactionOtherwise transaction: (PostgresWriteTransaction) async throws -> SingleWrite.Outcome
    ) async throws -> Tokened<SingleWrite.Outcome> {
        let slot = CommitTokenSlot()
        let outcome = try await perform(single, token: slot, inTransactionOtherwise: transaction)
        return Tokened(outcome, token: try Self.taken(slot))
    }

    private func perform(
        _ single: SingleWrite, token slot: CommitTokenSlot?,
        inTransactionOtherwise transaction: (PostgresWriteTransaction) async throws -> SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome {
        if let outcome = try await performInOneStatement(single, token: slot) { return outcome }
        slot?.token = nil
        return try await write(token: slot) { writer in
            writer.writesStatementByStatement = true
            return try await transaction(writer)
        }
    }

    /// Runs `single`'s plan as one statement on its own: what it did, or `nil` when the write must go through a
    /// transaction (the statement handed the row back, or the store seals bodies, or is read-only, or writes
    /// statement by statement).
    private func performInOneStatement(_ single: SingleWrite, token slot: CommitTokenSlot?) async throws
        -> SingleWrite.Outcome?
    {
        guard configuration.access == .readWrite, configuration.encryption == nil,
            postgresConfiguration.writesPlansInOneStatement
        else { return nil }
        let plan = single.plan
        let outcome = try await engine.withTransaction(.singleWrite, token: slot) { transaction in
            let writer = PostgresWriteTransaction(transaction, store: self)
            defer { writer.invalidate() }
            return try await writer.writeInOneStatement(
                plan, refusingNewerMinor: single.modelFormat != nil, alone: true)
        }
        guard case .written(let resolved, let pending) = outcome else { return nil }
        // Committed. A change left pending is numbered off this write's path, with every other one asked for
        // (``PendingChangeNumberer``), which then wakes the followers.
        if pending {
            numberer.requestNumbering()
        } else if resolved != nil {
            changeSignal.signal()
        }
        return SingleWrite.Outcome(resolved, of: plan)
    }
}
