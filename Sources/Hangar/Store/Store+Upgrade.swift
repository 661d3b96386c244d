import Foundation

/// How far a bulk upgrade has got.
public struct UpgradeProgress: Sendable {
    /// Stale documents rewritten so far.
    public let upgraded: Int
    /// Stale documents found when the upgrade started.
    public let total: Int
}

/// What a bulk upgrade did.
public struct UpgradeReport: Sendable {
    /// Documents rewritten at the current version.
    public var upgraded: [String] = []
    /// Documents whose major is newer than this code reads: left alone.
    public var newer: [String] = []
    /// Documents that could not be read or written, with why: left alone.
    public var quarantined: [QuarantinedDocument] = []
}

extension Store {
    /// Rewrites every document of `collection` older than `Document`'s current format, in batches of
    /// `batchSize` per transaction, reporting progress after each batch.
    ///
    /// Each document is migrated, read as a model and saved again (a new revision, the old one kept in
    /// history). A document that cannot be read is quarantined in the report, never skipped silently or
    /// changed; a document of a newer major is reported and left alone. A document saved by someone else
    /// while the upgrade runs is upgraded from its newest revision (each save checks the revision it read).
    public func upgrade<Document: VersionedDocument>(
        _ type: Document.Type,
        in collection: String = Document.collection,
        batchSize: Int = 200,
        progress: ((UpgradeProgress) -> Void)? = nil
    ) throws -> UpgradeReport {
        let current = Document.format.current
        let (stale, newer) = try read { transaction in
            (
                try transaction.keys(in: collection, olderThan: current),
                try transaction.keys(in: collection, newerThanMajor: current.major)
            )
        }
        var report = UpgradeReport(newer: newer)
        let began = ContinuousClock.now
        defer { DocumentRules.upgraded(report, collection: collection, since: began, configuration: configuration) }
        var start = 0
        while start < stale.count {
            let batch = stale[start..<min(start + max(1, batchSize), stale.count)]
            let (upgraded, quarantined) = try write { transaction in
                var upgraded: [String] = []
                var quarantined: [QuarantinedDocument] = []
                for key in batch {
                    do throws(HangarError) {
                        guard let stored = try transaction.document(in: collection, key: key) else { continue }
                        let loaded = try DocumentRules.decode(
                            stored, as: type, configuration: configuration, reportingFailure: false)
                        guard loaded.wasMigrated else { continue }
                        try transaction.save(loaded.value, key: key, in: collection, expectedRevision: loaded.revision)
                        upgraded.append(key)
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
}
