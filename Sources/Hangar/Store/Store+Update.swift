import Foundation

extension Store {
    /// Loads the document at `key`, lets `body` change it, and saves it only if nobody saved it meanwhile
    /// (its revision is the expected one); on a conflict, loads it again and repeats, up to
    /// `maximumAttempts` times, waiting a little (randomly, longer each time) between attempts.
    ///
    /// `body` runs outside any transaction, once per attempt, on the document as last saved: keep it free of
    /// effects other than changing the model. Returns the new revision.
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
    ) throws -> Int {
        let attempts = max(1, maximumAttempts)
        for attempt in 1...attempts {
            guard let loaded = try read({ try $0.load(type, key: key, in: collection) }) else {
                throw HangarError(.notFound, "No document to update", collection: collection, key: key)
            }
            var value = loaded.value
            try body(&value)
            do {
                return try write { transaction in
                    try transaction.save(value, key: key, in: collection, expectedRevision: loaded.revision)
                }
            } catch let error as HangarError where error.code == .conflict {
                guard attempt < attempts else { break }
                instruments.retrying(
                    attempt: attempt + 1, reason: "conflict", error: error, collection: collection, key: key)
                usleep(UInt32(DocumentRules.retryDelayMicroseconds(afterAttempt: attempt)))
            }
        }
        instruments.gaveUp(attempts: attempts, collection: collection, key: key)
        throw DocumentRules.contention(attempts: attempts, collection: collection, key: key)
    }
}
