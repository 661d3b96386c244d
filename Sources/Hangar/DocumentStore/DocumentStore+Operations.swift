import Foundation

/// What every engine's store does through its transactions, written once: the change feed read in a
/// transaction of its own, the check that every document reads, the update-with-retry helper, the bulk upgrade,
/// export and import.
extension DocumentStore {
    // MARK: The change feed

    /// The changes committed after `sequence` (of `collection` only, when given), oldest first, at most
    /// `limit`, in a read transaction of their own. Throws ``HangarError/changesTooOld`` when some were pruned.
    public func changes(since sequence: Int, in collection: String? = nil, limit: Int? = nil) async throws
        -> [Change]
    {
        try await read { try await $0.changes(since: sequence, in: collection, limit: limit) }
    }

    /// The sequence of the last change committed (0 when there has been none).
    public func lastChangeSequence() async throws -> Int {
        try await read { try await $0.lastChangeSequence() }
    }

    // MARK: Checking

    /// Every document, of every collection, whose stored envelope cannot be read back (its body does not decode,
    /// or it is no envelope with a version), each as the error reading it gave: it names the document, never its
    /// contents. One read transaction a collection; empty for a store whose every document reads.
    public func unreadableDocuments() async throws -> [HangarError] {
        let collections = try await read { try await $0.collections() }
        var unreadable: [HangarError] = []
        for collection in collections {
            unreadable += try await read { transaction in
                var errors: [HangarError] = []
                for key in try await transaction.keys(in: collection) {
                    do throws(HangarError) {
                        guard let stored = try await transaction.document(in: collection, key: key) else { continue }
                        _ = try DocumentRules.envelopeVersion(try stored.envelope(), collection: collection, key: key)
                    } catch {
                        // The store failing (a lost connection, a closed store) is no finding about a document.
                        guard !Self.failsTheCheck(error.code) else { throw error }
                        errors.append(error)
                    }
                }
                return errors
            }
        }
        return unreadable
    }

    /// Whether an error reading a document ends the check rather than being one of its findings.
    private static func failsTheCheck(_ code: HangarError.Code) -> Bool {
        code.isRetryable || [.closed, .timeout, .outcomeUnknown].contains(code)
    }

    // MARK: Updating with retries

    /// Loads the document at `key`, lets `body` change it, and saves it only if nobody saved it meanwhile;
    /// on a conflict, loads it again and repeats, up to `maximumAttempts` times, waiting a little (randomly,
    /// longer each time) between attempts. `body` runs outside any transaction, once per attempt. Returns
    /// the new revision.
    ///
    /// - Throws: ``HangarError/notFound`` when there is no document at `key`; ``HangarError/contention`` when
    ///   every attempt met a conflict; whatever `body` or the store throws otherwise (nothing is saved).
    @discardableResult
    public func update<Document: VersionedDocument>(
        _ type: Document.Type,
        key: String,
        in collection: String = Document.collection,
        maximumAttempts: Int = 100,
        _ body: (inout Document) throws -> Void
    ) async throws -> Int {
        let attempts = max(1, maximumAttempts)
        for attempt in 1...attempts {
            // Read as stored and decoded here: models need not be `Sendable`.
            guard let stored = try await read({ try await $0.document(in: collection, key: key) }) else {
                throw HangarError(.notFound, "No document to update", collection: collection, key: key)
            }
            let loaded = try DocumentRules.decode(stored, as: type, configuration: configuration)
            var value = loaded.value
            try body(&value)
            let changed = value
            do {
                return try await write { transaction in
                    try await transaction.save(changed, key: key, in: collection, expectedRevision: loaded.revision)
                }
            } catch let error as HangarError where error.code == .conflict {
                guard attempt < attempts else { break }
                configuration.instruments?.retrying(
                    attempt: attempt + 1, reason: "conflict", error: error, collection: collection, key: key)
                try await Task.sleep(for: .microseconds(DocumentRules.retryDelayMicroseconds(afterAttempt: attempt)))
            }
        }
        configuration.instruments?.gaveUp(attempts: attempts, collection: collection, key: key)
        throw DocumentRules.contention(attempts: attempts, collection: collection, key: key)
    }

    // MARK: Bulk upgrade

    /// Rewrites every document of `collection` older than `Document`'s current format, `batchSize` to a
    /// transaction, reporting progress after each batch; safe to run from several processes at once.
    ///
    /// Each stale document is migrated, read as a model and saved again with the revision it was read at. A
    /// document another writer (or another upgrade) saved meanwhile is read again: still stale, it is
    /// upgraded from its newest revision; already current, it is left alone. So each stale document gets
    /// exactly one upgrade revision however many upgrades run, and an upgrade stopped midway (even killed)
    /// is finished by the next one. Documents that cannot be read are quarantined in the report, never
    /// skipped silently or changed; documents of a newer major are reported and left alone.
    public func upgrade<Document: VersionedDocument>(
        _ type: Document.Type,
        in collection: String = Document.collection,
        batchSize: Int = 200,
        progress: ((UpgradeProgress) -> Void)? = nil
    ) async throws -> UpgradeReport {
        let current = Document.format.current
        let (stale, newer) = try await read { transaction in
            (
                try await transaction.keys(in: collection, olderThan: current),
                try await transaction.keys(in: collection, newerThanMajor: current.major)
            )
        }
        var report = UpgradeReport(newer: newer)
        let began = ContinuousClock.now
        defer { DocumentRules.upgraded(report, collection: collection, since: began, configuration: configuration) }
        var start = 0
        while start < stale.count {
            let batch = Array(stale[start..<min(start + max(1, batchSize), stale.count)])
            let configuration = configuration
            let (upgraded, quarantined) = try await write { transaction in
                var upgraded: [String] = []
                var quarantined: [QuarantinedDocument] = []
                for key in batch {
                    do throws(HangarError) {
                        if try await Self.upgradeOne(
                            type, key: key, in: collection, transaction, configuration: configuration)
                        {
                            upgraded.append(key)
                        }
                    } catch {
                        quarantined.append(
                            DocumentRules.quarantine(collection, key: key, error: error, configuration: configuration))
                    }
                }
                return (upgraded, quarantined)
            }
            report.upgraded += upgraded
            report.quarantined += quarantined
            start += batch.count
            progress?(UpgradeProgress(upgraded: report.upgraded.count, total: stale.count))
        }
        return report
    }

    /// Upgrades one document if it is still stale; returns whether this call saved it.
    private static func upgradeOne<Document: VersionedDocument>(
        _ type: Document.Type, key: String, in collection: String, _ transaction: Writer,
        configuration: StoreConfiguration
    ) async throws(HangarError) -> Bool {
        // A conflict means another writer saved it after it was read: read it again (a few times at most).
        for attempt in 1...upgradeAttempts {
            guard let stored = try await transaction.document(in: collection, key: key) else { return false }
            let loaded = try DocumentRules.decode(
                stored, as: type, configuration: configuration, reportingFailure: false)
            guard loaded.wasMigrated else { return false }
            do {
                try await transaction.save(loaded.value, key: key, in: collection, expectedRevision: loaded.revision)
                return true
            } catch  where error.code == .conflict && attempt < upgradeAttempts {
                continue
            }
        }
        return false
    }

    private static var upgradeAttempts: Int { 5 }
}
