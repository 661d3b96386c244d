extension PropertyList.Dictionary {
    /// A dictionary's keys in their kept order and, when that order is not key order, their positions in key order:
    /// one word either way, so that the dictionary is two words and every ``PropertyList`` value stays three
    /// (`MemoryLayout<PropertyList>.stride == 24`; an optional index beside the keys made it four, and every array
    /// of values a third bigger to build and walk).
    ///
    /// Both cases hold a single reference, so the enum keeps its case in the references' spare bits. Keys already
    /// ascending (files written by Apple's XML writer, plistlib and Hangar) cost nothing beyond their array; an
    /// index is one more allocation, shared by every copy of the table (the binary reader shares a whole table
    /// between dictionaries with the same key references).
    @usableFromInline
    enum KeyTable: Sendable {
        /// Keys strictly ascending in ``PropertyList/DictionaryKey`` order: a key's rank is its position.
        case ascending([String])
        /// Distinct keys in another order, with their positions in ascending key order.
        case indexed(IndexedKeys)

        /// A table of distinct `keys` whose positions in key order are `sortedPositions`, or `nil` when the keys
        /// are already ascending (``PropertyList/Dictionary/sortedPositions(of:)``).
        @inline(__always)
        init(keys: [String], sortedPositions: [Int]?) {
            if let sortedPositions {
                self = .indexed(IndexedKeys(keys: keys, sortedPositions: sortedPositions))
            } else {
                self = .ascending(keys)
            }
        }

        /// A table of distinct `keys` in any order (sorted once when they are not ascending).
        init(distinctKeys keys: [String]) {
            self.init(keys: keys, sortedPositions: PropertyList.Dictionary.sortedPositions(of: keys))
        }

        /// The keys, in the kept order.
        @inlinable
        var keys: [String] {
            switch self {
            case .ascending(let keys): keys
            case .indexed(let table): table.keys
            }
        }

        /// The positions of the keys in ascending key order, or `nil` when that is the kept order.
        var sortedPositions: [Int]? {
            switch self {
            case .ascending: nil
            case .indexed(let table): table.sortedPositions
            }
        }

        /// The number of keys.
        @inlinable
        var count: Int {
            switch self {
            case .ascending(let keys): keys.count
            case .indexed(let table): table.keys.count
            }
        }

        /// The key at `position` in the kept order.
        @inlinable
        subscript(position: Int) -> String {
            switch self {
            case .ascending(let keys): keys[position]
            case .indexed(let table): table.keys[position]
            }
        }

        /// The position of the entry that is `rank`-th in key order.
        @inline(__always)
        func position(ofRank rank: Int) -> Int {
            switch self {
            case .ascending: rank
            case .indexed(let table): table.sortedPositions[rank]
            }
        }

        /// The key that is `rank`-th in key order.
        @inline(__always)
        func key(ofRank rank: Int) -> String {
            switch self {
            case .ascending(let keys): keys[rank]
            case .indexed(let table): table.keys[table.sortedPositions[rank]]
            }
        }

        /// Whether the kept order is key order.
        var isAscending: Bool {
            if case .ascending = self { return true }
            return false
        }

        /// Appends `key`, which sorts after every key here, keeping the table ascending when it was.
        mutating func appendLast(_ key: String) {
            switch self {
            case .ascending(var keys):
                // Released first, so the array is unique and grows in place.
                self = .ascending([])
                keys.append(key)
                self = .ascending(keys)
            case .indexed(let table):
                self = .indexed(
                    IndexedKeys(keys: table.keys + [key], sortedPositions: table.sortedPositions + [table.keys.count]))
            }
        }
    }

    /// The keys of a dictionary whose kept order is not key order, and its sorted index. Immutable, so copies of a
    /// dictionary share it; an edit makes a new one (an edit of such a dictionary moves positions anyway, O(n)).
    @usableFromInline
    final class IndexedKeys: Sendable {
        /// The keys, in the kept order.
        @usableFromInline let keys: [String]
        /// The positions of the keys in ascending ``PropertyList/DictionaryKey`` order.
        let sortedPositions: [Int]

        init(keys: [String], sortedPositions: [Int]) {
            assert(keys.count == sortedPositions.count)
            self.keys = keys
            self.sortedPositions = sortedPositions
        }
    }
}
