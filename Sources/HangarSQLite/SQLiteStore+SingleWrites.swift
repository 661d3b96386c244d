public import Hangar
public import PropertyList

// A save or delete on its own is planned before the write begins: the model is encoded into its envelope, the
// envelope into its bytes and its index entries read, off the writer's turn, which then only applies the plan.
// Writes queue for one writer (and share its commits), so what runs before the turn runs in parallel; the plan is
// applied by whoever holds the turn when its place comes (``SQLiteStore/writeInline(_:)``), without a thread switch.

extension SQLiteStore {
    /// Saves `document` under `key` as a write of its own, encoded before the write begins; returns the new
    /// revision (``Hangar/DocumentStore/save(_:key:in:expectedRevision:)``).
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil
    ) async throws -> Int {
        let plan = try DocumentRules.planModelSave(
            document, expectedRevision: expectedRevision, configuration: configuration, collection: collection, key: key
        )
        let format = Document.format
        do {
            return try await writeInline { writer in try writer.apply(planned: plan, madeWith: format)?.revision ?? 0 }
        } catch is StoredNewerMinor {
            // The stored document is a newer minor, whose keys the model does not know: the save keeps them, made
            // again from the stored document (which needs the model, in a write of this task).
            return try await write { (writer: SQLiteWriteTransaction) async throws -> Int in
                try await writer.save(document, key: key, in: collection, expectedRevision: expectedRevision)
            }
        }
    }

    /// Saves an envelope under `key` as a write of its own, encoded before the write begins; returns the new
    /// revision.
    @discardableResult
    public func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil)
        async throws -> Int
    {
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration, collection: collection, key: key)
        return try await writeInline { writer in try writer.apply(planned: plan)?.revision ?? 0 }
    }

    /// Deletes the document at `key` as a write of its own; returns whether there was one.
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) async throws -> Bool {
        let plan = try DocumentRules.planDelete(
            key: key, in: collection, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration)
        return try await writeInline { writer in try writer.apply(planned: plan) != nil }
    }
}
