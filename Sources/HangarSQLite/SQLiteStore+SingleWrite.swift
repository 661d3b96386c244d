public import Hangar

// A single write (``Hangar/SingleWrite``) arrives planned: the model encoded into its envelope, the envelope into its
// bytes and its index entries read, off the writer's turn, which then only applies the plan. Writes queue for one
// writer (and share its commits), so what runs before the turn runs in parallel; the plan is applied by whoever
// holds the turn when its place comes (``SQLiteStore/writeInTurn(_:)``), without a thread switch.

extension SQLiteStore {
    /// Applies `single`'s plan in the writer's turn; a model save that finds a stored newer minor, whose keys it must
    /// keep, runs as `transaction` instead (in a write of this task: it needs the model), having written nothing.
    public func perform(
        _ single: SingleWrite,
        inTransactionOtherwise transaction: (SQLiteWriteTransaction) async throws ->
            SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome {
        let applied = try await writeInTurn { writer in try writer.apply(single) }
        if let applied { return applied }
        return try await write { (writer: SQLiteWriteTransaction) async throws -> SingleWrite.Outcome in
            try await transaction(writer)
        }
    }
}
