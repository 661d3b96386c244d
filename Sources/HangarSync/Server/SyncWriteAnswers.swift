public import Hangar
import PropertyList

/// The answers of single-document writes made with an idempotency key (HTTP's `Idempotency-Key` on a `PUT`),
/// kept where the sync server keeps the answers of applied mutations, `_sync.mutations`, and written in the same
/// transaction as the save: a write retried with the same key (by the same user) gets its original answer and
/// makes no second revision.
///
/// A record's key is `/put/LENGTH:USER/IDEMPOTENCY-KEY`, the user's UTF-8 length before it (`/put/-/…` in the
/// open scope), so no user and key pair writes another pair's record whatever `/` they hold; a sync client id
/// never holds `/`, so these never meet a mutation's `CLIENT/ID`.
public enum SyncWriteAnswers {
    /// A remembered answer: the document written, the revision the write made, and whether it created it.
    public struct Answer: Sendable, Hashable {
        /// The collection written.
        public var collection: String
        /// The document's key.
        public var key: String
        /// The revision the write made.
        public var revision: Int
        /// Whether the write created the document.
        public var created: Bool

        /// An answer.
        public init(collection: String, key: String, revision: Int, created: Bool) {
            self.collection = collection
            self.key = key
            self.revision = revision
            self.created = created
        }
    }

    /// Whether `idempotencyKey` may be used: non-empty, at most 255 bytes, no NUL.
    public static func isValid(_ idempotencyKey: String) -> Bool {
        !idempotencyKey.isEmpty && idempotencyKey.utf8.count <= 255 && !idempotencyKey.utf8.contains(0)
    }

    /// `SyncServer.mutationsCollection`.
    static let mutationsCollection = "_sync.mutations"

    static func recordKey(_ idempotencyKey: String, user: String?) -> String {
        guard let user else { return "/put/-/\(idempotencyKey)" }
        return "/put/\(user.utf8.count):\(user)/\(idempotencyKey)"
    }

    /// The answer remembered for `idempotencyKey` of `user`, if a write with it was made.
    public static func answer(for idempotencyKey: String, user: String?, _ reader: some DocumentReader) async throws
        -> Answer?
    {
        #if HANGAR_PLANTED_FAULTS
            if PlantedFault.isPlanted(.noIdempotencyRecord) { return nil }
        #endif
        let recordKey = recordKey(idempotencyKey, user: user)
        guard let stored = try await reader.document(in: mutationsCollection, key: recordKey)
        else { return nil }
        let record = try stored.envelope()
        guard let collection = record["collection"]?.stringValue, let key = record["key"]?.stringValue,
            let revision = record["revision"]?.integerValue?.exactly(Int.self),
            let created = record["created"]?.boolValue
        else {
            throw HangarError(.invalidDocument, "A remembered write answer is malformed", at: .root)
        }
        return Answer(collection: collection, key: key, revision: revision, created: created)
    }

    /// Remembers `answer` for `idempotencyKey` of `user`, in `writer`'s transaction (the save's own).
    public static func remember(
        _ answer: Answer, for idempotencyKey: String, user: String?, _ writer: some DocumentWriter
    ) async throws {
        let record: PropertyList = [
            "majorVersion": 1, "minorVersion": 0, "collection": .string(answer.collection), "key": .string(answer.key),
            "revision": .integer(.init(answer.revision)), "created": .boolean(answer.created),
        ]
        try await writer.save(
            envelope: record, key: recordKey(idempotencyKey, user: user), in: mutationsCollection,
            expectedRevision: 0)
    }
}
