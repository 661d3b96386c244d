// Commit tokens (``CommitToken``) through any store: the defaults, for an engine with one copy of its data (SQLite),
// where every read sees every commit that returned, so a token is the change feed's sequence and a read given one
// never waits. PostgreSQL's store replaces them with its WAL positions and its replicas.

extension DocumentStore {
    /// Runs `body` in a write transaction, as ``write(_:)``, and returns its result with its commit's token.
    ///
    /// The default reads the change feed's last sequence at the end of `body`, in the transaction: the write's own
    /// last change (or the one before it, for a write that changed nothing).
    public func writeReturningToken<Result: Sendable>(_ body: (Writer) async throws -> Result) async throws
        -> Tokened<Result>
    {
        try await write { writer in
            let value = try await body(writer)
            return Tokened(value, token: CommitToken(changeSequence: try await writer.lastChangeSequence()))
        }
    }

    /// Runs `body` in a read transaction that sees at least everything `token` covers (`nil`: any state), and
    /// returns its result with the token of what it saw (at least that new; echo it to read monotonically).
    ///
    /// The default reads the change feed's last sequence in the same transaction.
    public func read<Result: Sendable>(after token: CommitToken?, _ body: (Reader) async throws -> Result)
        async throws -> Tokened<Result>
    {
        try await read { reader in
            let value = try await body(reader)
            return Tokened(value, token: CommitToken(changeSequence: try await reader.lastChangeSequence()))
        }
    }

    /// The document at `key` (``document(in:key:)``), at least as new as `token`, with the token it is as of.
    public func document(in collection: String, key: String, after token: CommitToken?) async throws
        -> Tokened<StoredDocument?>
    {
        try await read(after: token) { try await $0.document(in: collection, key: key) }
    }

    /// ``perform(_:inTransactionOtherwise:)`` with the token of the write's commit. The default takes the change
    /// feed's last sequence just after the write returned: at least the write's own.
    public func performReturningToken(
        _ single: SingleWrite, inTransactionOtherwise transaction: (Writer) async throws -> SingleWrite.Outcome
    ) async throws -> Tokened<SingleWrite.Outcome> {
        let outcome = try await perform(single, inTransactionOtherwise: transaction)
        let token = try await read { CommitToken(changeSequence: try await $0.lastChangeSequence()) }
        return Tokened(outcome, token: token)
    }
}
