import Hangar
public import PropertyList

/// A conflict the replica met: the server moved on from the revision a local change was made on.
public struct SyncConflict: Sendable {
    /// The document's collection.
    public let collection: String
    /// The document's key.
    public let key: String
    /// The envelope both sides started from: `nil` when the server's history no longer keeps it, or when both
    /// sides created the key (then ``baseRevision`` is 0).
    public let base: PropertyList?
    /// The server revision the local change was made on (0: none, a create).
    public let baseRevision: Int
    /// The local envelope (`nil`: deleted locally).
    public let mine: PropertyList?
    /// The server's envelope (`nil`: deleted on the server).
    public let theirs: PropertyList?
    /// The server's revision.
    public let theirsRevision: Int
}

/// What a resolver decides.
public enum SyncResolution: Sendable {
    /// The server's document wins; with `keepingMine`, the local one is kept in the replica's conflict copies
    /// (``SyncReplica/conflictCopies(in:)``), where the app can find it.
    case theirs(keepingMine: Bool)
    /// The local document (or delete) wins: pushed again over theirs.
    case mine
    /// A new envelope, pushed over theirs.
    case merged(PropertyList)
}

/// Decides conflicts: called once per conflict with base, mine and theirs.
public struct SyncResolver: Sendable {
    /// The decision.
    public let resolve: @Sendable (SyncConflict) async throws -> SyncResolution

    /// A resolver running `resolve`.
    public init(_ resolve: @escaping @Sendable (SyncConflict) async throws -> SyncResolution) {
        self.resolve = resolve
    }

    /// The default, which never loses what a user saved:
    ///
    /// - edit versus delete (either way round): the edit wins; a document deleted on the server and edited here
    ///   is created again, one edited there and deleted here stays.
    /// - both edited: a three-way merge of top-level keys against the base (for a create on both sides, an
    ///   empty base): a key changed on one side only takes that side's value; the same change on both is kept.
    ///   When both sides changed one key differently, when their majors differ, or when the base is no longer
    ///   kept, theirs wins and mine is kept as a conflict copy.
    public static let `default` = SyncResolver { conflict in defaultResolution(conflict) }

    /// The default's decision (``default``).
    public static func defaultResolution(_ conflict: SyncConflict) -> SyncResolution {
        guard let theirs = conflict.theirs else { return conflict.mine == nil ? .theirs(keepingMine: false) : .mine }
        guard let mine = conflict.mine?.dictionaryValue else { return .theirs(keepingMine: false) }
        guard let theirsEntries = theirs.dictionaryValue else { return .theirs(keepingMine: true) }
        let base: PropertyList.Dictionary
        if let known = conflict.base?.dictionaryValue {
            base = known
        } else if conflict.baseRevision == 0 {
            base = [:]
        } else {
            return .theirs(keepingMine: true)
        }
        guard mine["majorVersion"] == theirsEntries["majorVersion"] else { return .theirs(keepingMine: true) }
        guard let merged = merge(base: base, mine: mine, theirs: theirsEntries) else {
            return .theirs(keepingMine: true)
        }
        return sameEntries(merged, theirsEntries) ? .theirs(keepingMine: false) : .merged(.dictionary(merged))
    }

    /// Whether two dictionaries hold the same keys with equal values, in whatever order.
    static func sameEntries(_ a: PropertyList.Dictionary, _ b: PropertyList.Dictionary) -> Bool {
        a.count == b.count && a.allSatisfy { b[$0.key] == $0.value }
    }

    /// The three-way merge of top-level keys, or `nil` when both sides changed one key differently.
    public static func merge(
        base: PropertyList.Dictionary, mine: PropertyList.Dictionary, theirs: PropertyList.Dictionary
    ) -> PropertyList.Dictionary? {
        var merged: PropertyList.Dictionary = [:]
        // Every name once by its bytes: two names equal but for Unicode normalization are two fields.
        var names = Set<ExactString>()
        for dictionary in [mine, theirs, base] {
            for name in dictionary.keys { names.insert(ExactString(name)) }
        }
        for name in names.sorted().map(\.string) {
            let original = base[name]
            let left = mine[name]
            let right = theirs[name]
            let value: PropertyList?
            if left == right {
                value = left
            } else if left == original {
                value = right
            } else if right == original {
                value = left
            } else {
                return nil
            }
            if let value { merged[name] = value }
        }
        return merged
    }
}
