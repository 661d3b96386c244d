/// Key rotation for every engine, written once: re-encrypting stored bodies with the current key.
extension DocumentStore {
    /// Seals again, with the current key of ``StoreConfiguration/encryption``, every stored body (current
    /// revisions and kept history) sealed with another key or stored as plaintext, `batchSize` bodies to a
    /// transaction, telling `progress` after each batch.
    ///
    /// Revisions, timestamps, index entries and content are unchanged, and no change is recorded in the change
    /// feed (followers and mirrors see nothing: the documents did not change). Each row is replaced only if it
    /// still holds the revision and key id it was read with, so writers may save meanwhile: what they save is
    /// sealed with the current key already. Rekey finds its work from the key ids stored, so one that stopped
    /// (even killed) is finished by running it again; it passes over the store until a pass finds nothing left
    /// to re-encrypt. Bodies that cannot be opened (a key not given, failed authentication) are reported in
    /// ``RekeyReport/quarantined``, left exactly as they are.
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` when the store has no encryption; store errors otherwise
    ///   (the batches committed before stay committed).
    @discardableResult
    public func rekey(batchSize: Int = 200, progress: ((RekeyProgress) -> Void)? = nil) async throws -> RekeyReport {
        guard let encryption = configuration.encryption else {
            throw HangarError(.invalidConfiguration, "Rekey needs a store opened with encryption (a current key)")
        }
        var report = RekeyReport()
        var quarantinedKeys = Set<RekeyPosition>()
        while true {
            var rekeyedInPass = 0
            for part in [StoredPart.current, .history] {
                var position: StoredDocument?
                repeat {
                    let batch = try await rekeyBatch(
                        part, after: position, encryption: encryption, limit: max(1, batchSize))
                    position = batch.last
                    rekeyedInPass += batch.rekeyed
                    report.rekeyed += part == .current ? batch.rekeyed : 0
                    report.rekeyedRevisions += part == .history ? batch.rekeyed : 0
                    for failure in batch.quarantined
                    where quarantinedKeys.insert(RekeyPosition(failure.document, part)).inserted {
                        report.quarantined.append(failure.quarantined)
                    }
                    progress?(
                        RekeyProgress(
                            part: part, rekeyed: report.rekeyed + report.rekeyedRevisions,
                            quarantined: report.quarantined.count))
                } while position != nil
            }
            report.passes += 1
            if rekeyedInPass == 0 { return report }
        }
    }

    /// One batch in its own transaction: reads at most `limit` bodies not sealed with the current key and seals
    /// each again. `last` is the last row read (nil when none was left).
    private func rekeyBatch(
        _ part: StoredPart, after position: StoredDocument?, encryption: any DocumentEncryption, limit: Int
    ) async throws -> RekeyBatch {
        try await write { transaction in
            let found = try await transaction.bodies(
                in: part, notSealedWith: encryption.currentKeyID, after: position, limit: limit)
            var batch = RekeyBatch(last: found.count == limit ? found.last : nil)
            for stored in found {
                do throws(HangarError) {
                    let plaintext = try stored.plaintextBody()
                    let context = EncryptionContext(
                        collection: stored.collection, key: stored.key, revision: stored.revision)
                    let sealed = try encryption.sealing(plaintext, context: context)
                    if try await transaction.replaceBody(
                        of: stored, in: part, with: sealed, keyID: encryption.currentKeyID)
                    {
                        batch.rekeyed += 1
                    }
                } catch {
                    batch.quarantined.append(
                        (stored, QuarantinedDocument(collection: stored.collection, key: stored.key, error: error)))
                }
            }
            return batch
        }
    }
}

/// How a ``DocumentStore/rekey(batchSize:progress:)`` goes, after each batch.
public struct RekeyProgress: Sendable {
    /// The part being re-encrypted.
    public let part: StoredPart
    /// Bodies re-encrypted so far (current revisions and history).
    public let rekeyed: Int
    /// Bodies that could not be opened so far.
    public let quarantined: Int
}

/// What a ``DocumentStore/rekey(batchSize:progress:)`` did.
public struct RekeyReport: Sendable {
    /// Current revisions re-encrypted.
    public var rekeyed = 0
    /// Revisions kept in history re-encrypted.
    public var rekeyedRevisions = 0
    /// Bodies that could not be opened (a key not given, failed authentication), left as they are.
    public var quarantined: [QuarantinedDocument] = []
    /// Passes over the store (the last one found nothing left to re-encrypt).
    public var passes = 0
}

/// One rekey transaction's outcome.
private struct RekeyBatch: Sendable {
    var last: StoredDocument?
    var rekeyed = 0
    var quarantined: [(document: StoredDocument, quarantined: QuarantinedDocument)] = []
}

/// A body's place, to report each body that cannot be opened once across passes.
private struct RekeyPosition: Hashable {
    let collection: String
    let key: String
    let revision: Int
    let part: StoredPart

    init(_ document: StoredDocument, _ part: StoredPart) {
        collection = document.collection
        key = document.key
        revision = document.revision
        self.part = part
    }
}
