import PropertyList

/// One read of an index's entries as an engine runs it: the range's conditions on the encoded value, where the
/// page starts, its direction and how many entries to read. Made from an ``IndexQuery`` by
/// ``DocumentReader/page(_:documents:)``; each engine renders it (``statement(table:placeholder:)``) as one
/// index range scan of its `index_entries` table, ordered by (value, key) with no sort.
@_spi(Engine) public struct IndexScan: Sendable {
    /// How an entry's value compares with a bound.
    public enum Comparison: String, Sendable {
        case equal = "="
        case atLeast = ">="
        case above = ">"
        case atMost = "<="
        case below = "<"

        var isLower: Bool { self == .atLeast || self == .above }
        var isUpper: Bool { self == .atMost || self == .below }

        func holds(_ value: [UInt8], _ bound: [UInt8]) -> Bool {
            let before = value.lexicographicallyPrecedes(bound)
            let after = bound.lexicographicallyPrecedes(value)
            switch self {
            case .equal: return !before && !after
            case .atLeast: return !before
            case .above: return after
            case .atMost: return !after
            case .below: return before
            }
        }
    }

    /// A condition on an entry's encoded value.
    public struct Condition: Sendable {
        public let comparison: Comparison
        public let bound: [UInt8]
    }

    /// A value bound to a statement.
    public enum Argument: Sendable {
        case text(String)
        case blob([UInt8])
        case integer(Int)
    }

    /// One entry read: its encoded value and key.
    public struct Entry: Sendable {
        public let value: [UInt8]
        public let key: String

        public init(value: [UInt8], key: String) {
            self.value = value
            self.key = key
        }
    }

    /// Entries whose key is `prefix` followed by the key of a stored document of `collection` (the owners
    /// index's records, `COLLECTION/KEY`, of documents not deleted): a key range of the index, and one lookup of
    /// each entry's document by its primary key.
    public struct KeyScope: Sendable {
        /// What every key scanned begins with.
        public let prefix: String
        /// The collection of the documents the rest of the keys name.
        public let collection: String

        /// The smallest text after every key that begins with ``prefix``.
        public let end: String
    }

    /// Entries of documents one user owns: those whose owner record (`PREFIX` followed by the entry's key, in
    /// ``DocumentOwners/collection``) has the owners index value ``value``.
    public struct OwnerScope: Sendable {
        /// The owner's id as the owners index encodes it.
        public let value: [UInt8]
        /// What an owner record's key is before the document's key: `COLLECTION/`.
        public let recordPrefix: String

        init(owner: String, collection: String) throws(HangarError) {
            try DocumentOwners.checkScopable(collection)
            guard let value = IndexValue.encoded(.string(owner)) else {
                throw HangarError(.invalidQuery, "An owner's id cannot be indexed", collection: collection)
            }
            self.value = value
            recordPrefix = collection + "/"
        }

        /// The condition that entry `e`'s document is owned, rendered with `bind`: one lookup of the owner record's
        /// entry per entry scanned. Its `OFFSET 0` keeps PostgreSQL from making it a join (which may hash the owner's
        /// entries and sort the page) so that the page stays one ordered scan on both engines.
        func condition(table: String, bind: (Argument) -> String) -> String {
            " AND EXISTS (SELECT 1 FROM \(table) AS o WHERE o.collection = \(bind(.text(DocumentOwners.collection)))"
                + " AND o.name = \(bind(.text(DocumentOwners.index.name))) AND o.value = \(bind(.blob(value)))"
                + " AND o.key = \(bind(.text(recordPrefix))) || e.key LIMIT 1 OFFSET 0)"
        }
    }

    public let collection: String
    public let index: String
    /// The conditions every value of the query's range meets.
    public let range: [Condition]
    /// The value and key the page starts after (exclusive), in the scan's direction.
    public let after: Entry?
    /// Whether the scan runs from the largest value down.
    public let descending: Bool
    /// How many entries to read.
    public let limit: Int
    /// Whether a key may have several entries in the range (every query but an equality): the scan then reads each
    /// key only at its first value in the scan's direction.
    public let firstValueOnly: Bool
    /// Only the entries of these keys, when set (``KeyScope``).
    public let keyScope: KeyScope?
    /// How many of the scan's first entries to skip (offset paging of the owners index).
    public let offset: Int
    /// When set, the scan reads this key's entries of the index instead (all its values, ascending; the range, the
    /// position and the limit left out): one lookup by key, how a live query learns where a changed document now is.
    public let onlyKey: String?
    /// Only the entries of documents this user owns, when set (``OwnerScope``).
    public let owner: OwnerScope?

    /// The statement reading the scan's entries (columns `value`, `key`) from `table`, with `placeholder(n)` for
    /// the n-th argument (1-based), and its arguments.
    ///
    /// A scan with a ``keyScope`` looks its documents up in `documents`, the engine's documents table.
    public func statement(table: String, documents: String = "documents", placeholder: (Int) -> String) -> (
        sql: String, arguments: [Argument]
    ) {
        if let onlyKey {
            let sql =
                "SELECT e.value, e.key FROM \(table) AS e WHERE e.collection = \(placeholder(1))"
                + " AND e.key = \(placeholder(3)) AND e.name = \(placeholder(2)) ORDER BY e.value"
            return (sql, [.text(collection), .text(index), .text(onlyKey)])
        }
        var arguments: [Argument] = [.text(collection), .text(index)]
        func bind(_ argument: Argument) -> String {
            arguments.append(argument)
            return placeholder(arguments.count)
        }
        // The cursor's position replaces the range's start (checked to lie inside it), so that the scan begins
        // there rather than at the range's start.
        let entryConditions = range.filter {
            after == nil || !(descending ? $0.comparison.isUpper : $0.comparison.isLower)
        }
        var sql =
            "SELECT e.value, e.key FROM \(table) AS e WHERE e.collection = \(placeholder(1)) AND e.name = \(placeholder(2))"
        for condition in entryConditions {
            sql += " AND e.value \(condition.comparison.rawValue) \(bind(.blob(condition.bound)))"
        }
        if let after, range.contains(where: { $0.comparison == .equal }) {
            // One value (the cursor's, checked): the keys after the cursor's, which the key column orders.
            sql += " AND e.key \(descending ? "<" : ">") \(bind(.text(after.key)))"
        } else if let after {
            let value = bind(.blob(after.value))
            sql += " AND (e.value, e.key) \(descending ? "<" : ">") (\(value), \(bind(.text(after.key))))"
        }
        if let keyScope {
            sql += " AND e.key >= \(bind(.text(keyScope.prefix))) AND e.key < \(bind(.text(keyScope.end)))"
            // Both engines count substr's start in characters (code points of UTF-8 text); PostgreSQL's substr takes an
            // integer (int4), not the bigint an integer argument binds as, hence the cast.
            let start = bind(.integer(keyScope.prefix.unicodeScalars.count + 1))
            sql +=
                " AND EXISTS (SELECT 1 FROM \(documents) AS d WHERE d.collection = \(bind(.text(keyScope.collection)))"
            sql += " AND d.key = substr(e.key, CAST(\(start) AS INTEGER)))"
        }
        if let owner { sql += owner.condition(table: table, bind: bind) }
        if firstValueOnly {
            sql += " AND NOT EXISTS (SELECT 1 FROM \(table) AS f WHERE f.collection = \(placeholder(1))"
            sql += " AND f.key = e.key AND f.name = \(placeholder(2))"
            for condition in range {
                sql += " AND f.value \(condition.comparison.rawValue) \(bind(.blob(condition.bound)))"
            }
            sql += " AND f.value \(descending ? ">" : "<") e.value)"
        }
        let direction = descending ? " DESC" : ""
        sql += " ORDER BY e.value\(direction), e.key\(direction) LIMIT \(bind(.integer(limit)))"
        if offset > 0 { sql += " OFFSET \(bind(.integer(offset)))" }
        return (sql, arguments)
    }

    /// The statement counting the keys in the scan's range (the whole range: not from the cursor), and its
    /// arguments.
    public func countStatement(table: String, placeholder: (Int) -> String) -> (sql: String, arguments: [Argument]) {
        var arguments: [Argument] = [.text(collection), .text(index)]
        func bind(_ argument: Argument) -> String {
            arguments.append(argument)
            return placeholder(arguments.count)
        }
        var sql = "SELECT count(\(firstValueOnly ? "DISTINCT e.key" : "*")) FROM \(table) AS e"
        sql += " WHERE e.collection = \(placeholder(1)) AND e.name = \(placeholder(2))"
        for condition in range {
            sql += " AND e.value \(condition.comparison.rawValue) \(bind(.blob(condition.bound)))"
        }
        if let owner { sql += owner.condition(table: table, bind: bind) }
        return (sql, arguments)
    }

    init(
        collection: String, index: String, range: [Condition], after: Entry?, descending: Bool, limit: Int,
        firstValueOnly: Bool, keyScope: KeyScope? = nil, offset: Int = 0, onlyKey: String? = nil,
        owner: OwnerScope? = nil
    ) {
        self.onlyKey = onlyKey
        self.owner = owner
        self.collection = collection
        self.index = index
        self.range = range
        self.after = after
        self.descending = descending
        self.limit = limit
        self.firstValueOnly = firstValueOnly
        self.keyScope = keyScope
        self.offset = offset
    }

    /// The same scan read from another position, or another number of entries.
    func with(after: Entry?, limit: Int, descending: Bool? = nil) -> IndexScan {
        IndexScan(
            collection: collection, index: index, range: range, after: after, descending: descending ?? self.descending,
            limit: limit, firstValueOnly: firstValueOnly, keyScope: keyScope, offset: offset, owner: owner)
    }

    /// The scan of `key`'s entries of this index (``onlyKey``).
    func entries(ofKey key: String) -> IndexScan {
        IndexScan(
            collection: collection, index: index, range: range, after: after, descending: descending, limit: limit,
            firstValueOnly: firstValueOnly, onlyKey: key)
    }

    /// Whether `value` is in the range.
    func contains(_ value: [UInt8]) -> Bool {
        range.allSatisfy { $0.comparison.holds(value, $0.bound) }
    }

    /// What cursors of this scan's query are checked against.
    var scope: IndexCursorScope {
        var bytes: [UInt8] = []
        for condition in range {
            bytes += Array(condition.comparison.rawValue.utf8) + [0]
            bytes += withUnsafeBytes(of: UInt32(condition.bound.count).bigEndian, Array.init) + condition.bound
        }
        if let owner {
            // 0xFF never begins a comparison's text: an owner's scope cannot read as one more condition.
            bytes += [0xFF] + withUnsafeBytes(of: UInt32(owner.value.count).bigEndian, Array.init) + owner.value
        }
        let digest = IndexCursor.checksum(bytes)
        return IndexCursorScope(
            collection: collection, index: index, descending: descending,
            rangeDigest: (0..<8).reversed().map { UInt8(truncatingIfNeeded: digest >> ($0 * 8)) })
    }
}
