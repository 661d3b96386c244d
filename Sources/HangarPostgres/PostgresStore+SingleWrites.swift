public import Hangar
public import PropertyList

// A write that saves or deletes one document and reads nothing else (the server's PUT and DELETE, `hangar db put`)
// is one statement in autocommit: `write_document_alone` takes the key's lock, checks the plan's conditions,
// writes, and notes the change, and the statement's end commits it. No `BEGIN`, no `COMMIT`, no separate
// `note_changes`: one round trip where a transaction takes four. Whatever the rules must judge (a conflict, a
// stored newer major or minor, a sealed body, an index not declared) is handed back without writing, and the write
// runs as a transaction of its own, statement by statement, where the rules give the error or the write.

extension PostgresStore {
    /// Saves `document` under `key` in one statement on its own when it can (see above); otherwise as
    /// `write { try await $0.save(document, …) }`. Returns the new revision.
    @discardableResult
    public func save<Document: VersionedDocument>(
        _ document: Document, key: String, in collection: String = Document.collection, expectedRevision: Int? = nil
    ) async throws -> Int {
        // The envelope as if no newer minor were stored: the statement hands the row back when one is.
        let plan = try DocumentRules.planModelSave(
            document, expectedRevision: expectedRevision, configuration: configuration, collection: collection, key: key
        )
        if let written = try await writeAlone(plan, refusingNewerMinor: true) { return written?.revision ?? 0 }
        return try await write { writer in
            try await writer.save(document, key: key, in: collection, expectedRevision: expectedRevision)
        }
    }

    /// Saves an envelope as it is under `key` in one statement on its own when it can; otherwise as
    /// `write { try await $0.save(envelope: …) }`. Returns the new revision.
    @discardableResult
    public func save(envelope: PropertyList, key: String, in collection: String, expectedRevision: Int? = nil)
        async throws -> Int
    {
        let plan = try DocumentRules.planEnvelopeSave(
            envelope, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration, collection: collection, key: key)
        if let written = try await writeAlone(plan, refusingNewerMinor: false) { return written?.revision ?? 0 }
        return try await write { writer in
            try await writer.save(envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
        }
    }

    /// Deletes the document at `key` in one statement on its own when it can; otherwise as
    /// `write { try await $0.delete(…) }`. Returns whether there was one.
    @discardableResult
    public func delete(key: String, in collection: String, expectedRevision: Int? = nil) async throws -> Bool {
        let plan = try DocumentRules.planDelete(
            key: key, in: collection, expectedRevision: expectedRevision, overwritingNewerMajor: false,
            configuration: configuration)
        if let written = try await writeAlone(plan, refusingNewerMinor: false) { return written != nil }
        return try await write { writer in
            try await writer.delete(key: key, in: collection, expectedRevision: expectedRevision)
        }
    }

    /// Runs `plan` as one statement on its own: what it wrote (`nil` inside: a delete of nothing), or `nil` when
    /// the write must go through a transaction (the statement handed the row back, or the store seals bodies,
    /// or is read-only, or writes statement by statement).
    private func writeAlone(_ plan: WritePlan, refusingNewerMinor: Bool) async throws -> ResolvedWrite?? {
        guard configuration.access == .readWrite, configuration.encryption == nil,
            postgresConfiguration.writesPlansInOneStatement
        else { return nil }
        let outcome = try await engine.withTransaction(.singleWrite) { transaction in
            let writer = PostgresWriteTransaction(transaction, store: self)
            defer { writer.invalidate() }
            return try await writer.writeInOneStatement(plan, refusingNewerMinor: refusingNewerMinor, alone: true)
        }
        guard case .written(let resolved, let pending) = outcome else { return nil }
        // Committed. A change left pending is numbered off this write's path, with every other one asked for
        // (``PendingChangeNumberer``), which then wakes the followers.
        if pending {
            numberer.requestNumbering()
        } else if resolved != nil {
            changeSignal.signal()
        }
        return .some(resolved)
    }
}
