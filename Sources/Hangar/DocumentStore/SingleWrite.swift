public import PropertyList

// A single write: a save or delete on its own, the server's PUT and DELETE, `hangar db put`. It is planned before
// the write begins (the model encoded into its envelope, the envelope into its bytes, its index entries read), off
// the writer's turn, and the engine applies the plan in its cheapest way for one write
// (``DocumentStore/perform(_:inTransactionOtherwise:)``): on SQLite in the writer's turn of the write before it,
// without a thread switch; on PostgreSQL in one statement in autocommit. Where the plan alone cannot decide (a
// stored newer minor whose keys a model save keeps; on PostgreSQL whatever the rules must judge), the engine runs
// the write as a transaction of its own, once.

/// A save or delete planned before its write begins, for ``DocumentStore/perform(_:inTransactionOtherwise:)``.
public struct SingleWrite: Sendable {
    /// The plan, made with the store's configuration.
    package let plan: WritePlan
    /// The format of the model a save was made from: a stored newer minor of its major has keys the model does not
    /// know, which the save must keep (``DocumentRules/keepsStoredKeys(storedVersion:format:)``), so the plan does
    /// not apply. `nil` for an envelope save and a delete.
    package let modelFormat: DocumentFormat?

    package init(_ plan: WritePlan, modelFormat: DocumentFormat? = nil) {
        self.plan = plan
        self.modelFormat = modelFormat
    }

    /// What a single write did.
    public enum Outcome: Sendable, Equatable {
        /// A save, with the revision it wrote.
        case saved(revision: Int)
        /// A delete of the document that was there.
        case deleted
        /// A delete that found no document.
        case nothingToDelete

        /// What applying a plan resolved to (`nil`: a delete of nothing).
        package init(_ resolved: ResolvedWrite?, of plan: WritePlan) {
            guard let resolved else {
                self = .nothingToDelete
                return
            }
            self = plan.content == nil ? .deleted : .saved(revision: resolved.revision)
        }

        /// The revision a save wrote (0 for a delete).
        var revision: Int {
            if case .saved(let revision) = self { return revision }
            return 0
        }
    }
}

extension DocumentStore {
    /// Performs `single` as a write of its own in a transaction (`transaction`): the form of an engine with no
    /// cheaper one.
    public func perform(
        _ single: SingleWrite, inTransactionOtherwise transaction: (Writer) async throws -> SingleWrite.Outcome
    ) async throws -> SingleWrite.Outcome {
        try await write { try await transaction($0) }
    }

    /// Saves `document` under `key` as a single write of its own (see ``SingleWrite``); returns the new revision.
    /// `expectedRevision`, when given, must be the stored revision (0: none), or nothing is written
    /// (``HangarError/conflict``).
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil
    ) async throws -> Int {
        let plan = try DocumentRules.planModelSave(
            document, expectedRevision: expectedRevision, configuration: configuration, collection: collection, key: key
        )
        return try await perform(SingleWrite(plan, modelFormat: Document.format)) { writer in
            .saved(
                revision: try await writer.save(document, key: key, in: collection, expectedRevision: expectedRevision))
        }.revision
    }

    /// Saves an envelope as it is under `key`, as a single write of its own; returns the new revision.
    @discardableResult
    public func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil)
        async throws -> Int
    {
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration, collection: collection, key: key)
        return try await perform(SingleWrite(plan)) { writer in
            .saved(
                revision: try await writer.save(
                    envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision))
        }.revision
    }

    /// Deletes the document at `key` as a single write of its own; returns whether there was one.
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) async throws -> Bool {
        let plan = try DocumentRules.planDelete(
            key: key, in: collection, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration)
        return try await perform(SingleWrite(plan)) { writer in
            try await writer.delete(key: key, in: collection, expectedRevision: expectedRevision)
                ? .deleted : .nothingToDelete
        } == .deleted
    }

    /// ``save(_:key:in:expectedRevision:)`` returning the token of its commit (``CommitToken``).
    public func saveReturningToken<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil
    ) async throws -> Tokened<Int> {
        let plan = try DocumentRules.planModelSave(
            document, expectedRevision: expectedRevision, configuration: configuration, collection: collection, key: key
        )
        let done = try await performReturningToken(SingleWrite(plan, modelFormat: Document.format)) { writer in
            .saved(
                revision: try await writer.save(document, key: key, in: collection, expectedRevision: expectedRevision))
        }
        return Tokened(done.value.revision, token: done.token)
    }

    /// ``save(envelope:key:in:expectedRevision:)`` returning the token of its commit (``CommitToken``).
    public func saveReturningToken(
        envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil
    ) async throws -> Tokened<Int> {
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration, collection: collection, key: key)
        let done = try await performReturningToken(SingleWrite(plan)) { writer in
            .saved(
                revision: try await writer.save(
                    envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision))
        }
        return Tokened(done.value.revision, token: done.token)
    }
}
