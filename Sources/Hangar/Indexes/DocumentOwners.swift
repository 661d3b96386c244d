import PropertyList

/// Who owns which document, as a server that scopes its data by user records it (HangarSync's `SyncOwnership`):
/// one record per document in the reserved collection ``collection``, under the key `COLLECTION/KEY`, whose
/// `user` is the owner's id.
///
/// Every store keeps the owners index (``index``) over those records, built on open and maintained by every save
/// like any declared index, so that one user's documents of a collection are one page of that index
/// (``DocumentReader/ownedKeys(in:owner:limit:offset:)``), not a check of every key. Owners are told apart by
/// the bytes of their ids: `caf\u{E9}` and `cafe\u{301}` are two users.
public enum DocumentOwners {
    /// The reserved collection of the owner records.
    public static var collection: String { "_sync.owners" }

    /// The owners index: each record's `user`.
    public static var index: IndexDefinition { .path("user", name: "owner") }

    /// The key of the owner record of `key` in `collection`: `COLLECTION/KEY`, unambiguous because a scoped
    /// collection's name holds no `/` byte (``HangarError/Code/invalidName`` otherwise), whatever the key holds.
    public static func recordKey(_ key: String, in collection: String) throws(HangarError) -> String {
        try checkScopable(collection)
        return "\(collection)/\(key)"
    }

    static func checkScopable(_ collection: String) throws(HangarError) {
        guard !collection.utf8.contains(UInt8(ascii: "/")) else {
            throw HangarError(.invalidName, "A collection scoped by user cannot have \"/\" in its name")
        }
    }
}

extension DocumentReader {
    /// The keys of `collection`'s stored documents that `owner` owns (``DocumentOwners``), in key order (UTF-8
    /// bytes): at most `limit` after the first `offset`, and whether more follow. One range scan of the owners
    /// index (its entries of `owner` whose keys begin `COLLECTION/`), each entry's document looked up by key: what
    /// an index page costs, however many documents others own. A record whose document was deleted is not listed.
    ///
    /// `nil` when the store has not built the owners index (a store opened read-only since before this Hangar
    /// kept it): the caller checks the keys one by one instead.
    public func ownedKeys(in collection: String, owner: String, limit: Int, offset: Int = 0)
        async throws(HangarError) -> (keys: [String], more: Bool)?
    {
        guard try await hasOwnersIndex() else { return nil }
        let scan = try IndexScan.owned(in: collection, by: owner, limit: limit, offset: offset)
        let entries = try await indexEntries(scan)
        let prefix = scan.keyScope?.prefix.utf8.count ?? 0
        let keys = entries.prefix(limit).map { String(decoding: $0.key.utf8.dropFirst(prefix), as: UTF8.self) }
        return (keys, entries.count > limit)
    }
}

extension DocumentReader {
    /// Whether the store has built the owners index (``DocumentOwners/index``), which ``ownedKeys(in:owner:limit:offset:)``
    /// and queries with an ``IndexQuery/owner`` read. Every store builds it on open; a store opened read-only since
    /// before this Hangar kept one has not.
    public func hasOwnersIndex() async throws(HangarError) -> Bool {
        let definition = DocumentOwners.index
        return try await builtIndexes(in: DocumentOwners.collection).contains {
            $0.name.hasSameBytes(as: definition.name) && $0.fingerprint.hasSameBytes(as: definition.fingerprint)
        }
    }
}

extension IndexScan {
    /// The scan of the owners index behind ``DocumentReader/ownedKeys(in:owner:limit:offset:)``: the entries of
    /// `owner` whose keys begin `COLLECTION/`, of stored documents, `limit + 1` after the first `offset`.
    static func owned(in collection: String, by owner: String, limit: Int, offset: Int) throws(HangarError)
        -> IndexScan
    {
        let scope = try OwnerScope(owner: owner, collection: collection)
        guard limit >= 1, offset >= 0 else {
            throw HangarError(.invalidQuery, "A page of owned keys has a limit of 1 or more and an offset of 0 or more")
        }
        // "/" is 0x2F: every key that begins "COLLECTION/" sorts before "COLLECTION0".
        return IndexScan(
            collection: DocumentOwners.collection, index: DocumentOwners.index.name,
            range: [Condition(comparison: .equal, bound: scope.value)], after: nil, descending: false,
            limit: min(limit, 1 << 40) + 1, firstValueOnly: false,
            keyScope: KeyScope(prefix: scope.recordPrefix, collection: collection, end: collection + "0"),
            offset: offset)
    }
}
