public import Hangar
import PropertyList

/// Who owns which document when a server scopes its data by user (`pilots-server --auth-key`): each document
/// belongs to the user who created it, and a user sees and writes only their own.
///
/// The owner lives in a reserved collection of the same store, `_sync.owners`, under the key `COLLECTION/KEY`,
/// so the claim is written in the same write transaction as the document's creation on any engine (and rolled
/// back with it), needs no change to the document's own bytes (what sync sends byte for byte), and is never
/// synced (names starting `_sync` are reserved). A record outlives its document's deletion: the key stays its
/// owner's, so a deletion is only ever shown to the owner, and nobody else can take the key over.
///
/// A `nil` user is the open scope (a server without auth): everything is visible and nothing is claimed.
public enum SyncOwnership {
    /// The reserved collection of the owners (``Hangar/DocumentOwners/collection``, which every store indexes by
    /// owner).
    public static var ownersCollection: String { DocumentOwners.collection }

    /// The key of the owner record of `key` in `collection`: `COLLECTION/KEY` (``Hangar/DocumentOwners/recordKey(_:in:)``).
    static func recordKey(_ key: String, in collection: String) throws(HangarError) -> String {
        try DocumentOwners.recordKey(key, in: collection)
    }

    /// The owner of `key` in `collection`, `nil` when nobody claimed it (created in the open scope).
    public static func owner(of key: String, in collection: String, _ reader: some DocumentReader) async throws
        -> String?
    {
        guard let stored = try await reader.document(in: ownersCollection, key: try recordKey(key, in: collection))
        else {
            return nil
        }
        guard let user = try stored.envelope()["user"]?.stringValue else {
            throw HangarError(.invalidDocument, "The owner record of \(collection)/\(key) is malformed", at: .root)
        }
        return user
    }

    /// Whether `user` may see `key` of `collection`: always in the open scope (`user == nil`), else only when
    /// `user` owns it. A document nobody claimed is nobody's when users are scoped.
    public static func isVisible(
        _ key: String, in collection: String, to user: String?, _ reader: some DocumentReader
    ) async throws -> Bool {
        guard let user else { return true }
        // By bytes: a user id canonically equivalent to the owner's, spelled otherwise, is another user.
        guard let owner = try await owner(of: key, in: collection, reader) else { return false }
        return owner.hasSameBytes(as: user)
    }

    /// Before `user` writes `key` of `collection`, in the write's own transaction: `true` when the user owns it,
    /// or when nobody does and no document holds the key (the key is then claimed for `user`, in this
    /// transaction); `false` when it is another user's, or an unclaimed existing document (answer as not found).
    /// Always `true` in the open scope.
    public static func admit(
        _ key: String, in collection: String, for user: String?, _ writer: some DocumentWriter
    ) async throws -> Bool {
        guard let user else { return true }
        if let owner = try await owner(of: key, in: collection, writer) { return owner.hasSameBytes(as: user) }
        guard try await writer.document(in: collection, key: key) == nil else { return false }
        let record: PropertyList = ["majorVersion": 1, "minorVersion": 0, "user": .string(user)]
        try await writer.save(
            envelope: record, key: try recordKey(key, in: collection), in: ownersCollection, expectedRevision: 0)
        return true
    }
}
