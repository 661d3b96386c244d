extension PropertyList {
    /// String keys to values, where two keys are the same only when they hold the same Unicode scalars.
    ///
    /// Swift's `Dictionary<String, …>` treats canonically equivalent strings as one key, so `"café"` spelt
    /// with U+00E9 and spelt with `e` + U+0301 would merge and a value would be lost. Here they are two keys,
    /// as they are in CoreFoundation, Python's `plistlib` and libplist.
    ///
    /// Entries keep their order: the order a file had them in when decoded, the order they were added in when
    /// built (a new key goes at the end; replacing a value keeps its place). Equality and hashing ignore the
    /// order. Writers emit the kept order, or keys sorted by UTF-16 code unit as `plutil` does when
    /// ``EncodingOptions/keyOrder`` asks (the default, so that equal values give equal bytes). A lookup is a
    /// binary search, through a sorted index of positions kept beside the entries when they are not already
    /// in key order; adding a key that sorts last appends, any other costs O(n).
    public struct Dictionary: Sendable {
        /// The keys in the kept order, with their sorted index when that order is not key order (``KeyTable``).
        @usableFromInline var keyTable: KeyTable
        /// `valueStorage[i]` belongs to the key at position `i`.
        @usableFromInline var valueStorage: [PropertyList]

        /// An empty dictionary.
        public init() {
            keyTable = .ascending([])
            valueStorage = []
        }

        /// A dictionary with room for `capacity` entries.
        public init(minimumCapacity capacity: Int) {
            self.init()
            reserveCapacity(capacity)
        }

        /// A dictionary of `entries`, in their order; when a key appears more than once, `combine` chooses the
        /// value (given the value so far and the later one), which stays where the key first appeared.
        public init<S: Sequence<(String, PropertyList)>>(
            _ entries: S,
            uniquingKeysWith combine: (PropertyList, PropertyList) throws -> PropertyList
        ) rethrows {
            var keys: [String] = []
            var values: [PropertyList] = []
            keys.reserveCapacity(entries.underestimatedCount)
            values.reserveCapacity(entries.underestimatedCount)
            for (key, value) in entries {
                keys.append(key)
                values.append(value)
            }
            try self.init(keys: keys, values: values, uniquingKeysWith: combine)
        }

        /// A dictionary of `entries`, in their order, whose keys are all different (a repeated key keeps its last
        /// value, at its first place).
        public init<S: Sequence<(String, PropertyList)>>(uniqueKeysWithValues entries: S) {
            self.init(entries, uniquingKeysWith: { _, last in last })
        }

        /// A dictionary from parallel arrays whose keys are strictly ascending (``isAscending(_:)``).
        init(ascendingKeys keys: [String], values: [PropertyList]) {
            assert(keys.count == values.count && Self.isAscending(keys))
            keyTable = .ascending(keys)
            valueStorage = values
        }

        /// A dictionary from parallel arrays of different keys, with their sorted positions already known
        /// (``sortedPositions(of:)`` of these keys).
        init(distinctKeys keys: [String], values: [PropertyList], sortedPositions: [Int]?) {
            assert(keys.count == values.count)
            keyTable = KeyTable(keys: keys, sortedPositions: sortedPositions)
            valueStorage = values
        }

        /// A dictionary of `values` under the keys of `keyTable` (another dictionary's keys, shared).
        init(keyTable: KeyTable, values: [PropertyList]) {
            assert(keyTable.count == values.count)
            self.keyTable = keyTable
            valueStorage = values
        }

        /// Whether `keys` are strictly ascending in ``PropertyList/DictionaryKey`` order (so none is repeated).
        static func isAscending(_ keys: [String]) -> Bool {
            var index = 1
            while index < keys.count {
                if KeyOrder.compare(keys[index - 1], keys[index]) >= 0 { return false }
                index += 1
            }
            return true
        }

        /// The positions of `keys` in ascending key order (equal keys by position), or `nil` when they already
        /// are strictly ascending.
        static func sortedPositions(of keys: [String]) -> [Int]? {
            if isAscending(keys) { return nil }
            return keys.indices.sorted { left, right in
                let comparison = KeyOrder.compare(keys[left], keys[right])
                return comparison == 0 ? left < right : comparison < 0
            }
        }

        /// A dictionary from parallel arrays, in their order; a key given twice stays at its first place with the
        /// value `combine` chooses. Keys already ascending (files written by Apple's XML writer and by Hangar)
        /// cost one pass.
        init(
            keys: [String], values: [PropertyList],
            uniquingKeysWith combine: (PropertyList, PropertyList) throws -> PropertyList
        ) rethrows {
            guard let order = Self.sortedPositions(of: keys) else {
                self.init(ascendingKeys: keys, values: values)
                return
            }
            // Repeated keys are neighbours in `order`, the first place first: fold each run into its first place.
            var dropped = [Bool](repeating: false, count: keys.count)
            var combined = values
            var hasRepeats = false
            var rank = 1
            var runStart = order[0]
            while rank < order.count {
                let position = order[rank]
                if KeyOrder.compare(keys[runStart], keys[position]) == 0 {
                    combined[runStart] = try combine(combined[runStart], values[position])
                    dropped[position] = true
                    hasRepeats = true
                } else {
                    runStart = position
                }
                rank += 1
            }
            guard hasRepeats else {
                self.init(distinctKeys: keys, values: values, sortedPositions: order)
                return
            }
            var keptKeys: [String] = []
            var keptValues: [PropertyList] = []
            for position in keys.indices where !dropped[position] {
                keptKeys.append(keys[position])
                keptValues.append(combined[position])
            }
            self.init(distinctKeys: keptKeys, values: keptValues, sortedPositions: Self.sortedPositions(of: keptKeys))
        }

        /// The number of entries.
        @inlinable public var count: Int { valueStorage.count }

        /// Whether there are no entries.
        @inlinable public var isEmpty: Bool { valueStorage.isEmpty }

        /// The keys, in the kept order.
        public var keys: [String] { keyTable.keys }

        /// The values, in the order of their keys.
        public var values: [PropertyList] { valueStorage }

        /// Whether the kept order is ascending key order (as every writer's sorted output has it).
        public var isInKeyOrder: Bool { keyTable.isAscending }

        /// The same entries, in ascending key order (by UTF-16 code unit, as `plutil` sorts them).
        public func sortedByKey() -> Dictionary {
            guard case .indexed(let table) = keyTable else { return self }
            return Dictionary(
                ascendingKeys: table.sortedPositions.map { table.keys[$0] },
                values: table.sortedPositions.map { valueStorage[$0] })
        }

        /// The position of the entry that is `rank`-th in key order.
        @inline(__always)
        func position(ofRank rank: Int) -> Int {
            keyTable.position(ofRank: rank)
        }

        /// Makes room for `capacity` entries.
        public mutating func reserveCapacity(_ capacity: Int) {
            if case .ascending(var keys) = keyTable {
                // Released first, so the array is unique and grows in place.
                keyTable = .ascending([])
                keys.reserveCapacity(capacity)
                keyTable = .ascending(keys)
            }
            valueStorage.reserveCapacity(capacity)
        }

        /// The value under `key` (compared scalar for scalar); assigning `nil` removes the key.
        public subscript(key: String) -> PropertyList? {
            get {
                guard case .found(let rank) = search(key) else { return nil }
                return valueStorage[position(ofRank: rank)]
            }
            set {
                if let newValue {
                    updateValue(newValue, forKey: key)
                } else {
                    removeValue(forKey: key)
                }
            }
        }

        /// The value under `key`, or `defaultValue` when there is none.
        public subscript(key: String, default defaultValue: @autoclosure () -> PropertyList) -> PropertyList {
            self[key] ?? defaultValue()
        }

        /// Whether `key` (scalar for scalar) is present.
        public func contains(key: String) -> Bool {
            if case .found = search(key) { return true }
            return false
        }

        /// The position of `key` in the kept order, if it is present.
        public func index(forKey key: String) -> Int? {
            guard case .found(let rank) = search(key) else { return nil }
            return position(ofRank: rank)
        }

        /// Sets the value under `key`, in its place, or at the end when the key is new; returns the value it
        /// replaced, if any.
        @discardableResult
        public mutating func updateValue(_ value: PropertyList, forKey key: String) -> PropertyList? {
            switch search(key) {
            case .found(let rank):
                let position = position(ofRank: rank)
                let old = valueStorage[position]
                valueStorage[position] = value
                return old
            case .insertionPoint(let rank):
                let position = valueStorage.count
                valueStorage.append(value)
                if keyTable.isAscending && rank == position {
                    keyTable.appendLast(key)
                    return nil
                }
                var order = keyTable.sortedPositions ?? Array(0..<position)
                order.insert(position, at: rank)
                keyTable = .indexed(IndexedKeys(keys: keyTable.keys + [key], sortedPositions: order))
                return nil
            }
        }

        /// Removes `key`; returns its value, if it was present. The other entries keep their order.
        @discardableResult
        public mutating func removeValue(forKey key: String) -> PropertyList? {
            guard case .found(let rank) = search(key) else { return nil }
            return remove(rank: rank)
        }

        private mutating func remove(rank: Int) -> PropertyList {
            let position = position(ofRank: rank)
            let value = valueStorage.remove(at: position)
            switch keyTable {
            case .ascending(var keys):
                // Released first, so the array is unique and shrinks in place; what is left is still ascending.
                keyTable = .ascending([])
                keys.remove(at: position)
                keyTable = .ascending(keys)
            case .indexed(let table):
                var keys = table.keys
                keys.remove(at: position)
                var order = table.sortedPositions
                order.remove(at: rank)
                var isIdentity = true
                for index in order.indices {
                    if order[index] > position { order[index] -= 1 }
                    if order[index] != index { isIdentity = false }
                }
                keyTable = KeyTable(keys: keys, sortedPositions: isIdentity ? nil : order)
            }
            return value
        }

        /// Adds `other`'s entries after this dictionary's, in their order; for a key in both, `combine` gets this
        /// dictionary's value and `other`'s, and the result stays in this dictionary's place.
        public mutating func merge(
            _ other: Dictionary, uniquingKeysWith combine: (PropertyList, PropertyList) throws -> PropertyList
        ) rethrows {
            guard !other.isEmpty else { return }
            guard !isEmpty else {
                self = other
                return
            }
            try self = Dictionary(
                keys: keyTable.keys + other.keyTable.keys, values: valueStorage + other.valueStorage,
                uniquingKeysWith: combine)
        }

        /// The entries for which `isIncluded` is true, in their order.
        public func filter(_ isIncluded: ((key: String, value: PropertyList)) throws -> Bool) rethrows -> Dictionary {
            var keys: [String] = []
            var values: [PropertyList] = []
            for entry in self where try isIncluded(entry) {
                keys.append(entry.key)
                values.append(entry.value)
            }
            return Dictionary(keyTable: KeyTable(distinctKeys: keys), values: values)
        }

        /// The same keys, in the same order, with transformed values.
        public func mapValues(_ transform: (PropertyList) throws -> PropertyList) rethrows -> Dictionary {
            var result = self
            result.valueStorage = try valueStorage.map(transform)
            return result
        }

        private enum SearchResult {
            case found(Int)
            case insertionPoint(Int)
        }

        /// Binary search in key order, by rank; past the last key is checked first (builders add in order).
        private func search(_ key: String) -> SearchResult {
            switch keyTable {
            case .ascending(let keys):
                return Self.search(key, count: keys.count) { keys[$0] }
            case .indexed(let table):
                return Self.search(key, count: table.keys.count) { table.keys[table.sortedPositions[$0]] }
            }
        }

        @inline(__always)
        private static func search(_ key: String, count: Int, keyOfRank: (Int) -> String) -> SearchResult {
            guard count > 0 else { return .insertionPoint(0) }
            let lastComparison = KeyOrder.compare(keyOfRank(count - 1), key)
            if lastComparison < 0 { return .insertionPoint(count) }
            if lastComparison == 0 { return .found(count - 1) }
            var low = 0
            var high = count - 1
            while low < high {
                let middle = (low + high) / 2
                let comparison = KeyOrder.compare(keyOfRank(middle), key)
                if comparison == 0 { return .found(middle) }
                if comparison < 0 { low = middle + 1 } else { high = middle }
            }
            return .insertionPoint(low)
        }
    }
}

extension PropertyList.Dictionary: RandomAccessCollection {
    public typealias Element = (key: String, value: PropertyList)
    public typealias Index = Int

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { valueStorage.count }

    /// The entry at `position`, in the kept order.
    @inlinable public subscript(position: Int) -> Element {
        (keyTable[position], valueStorage[position])
    }
}

extension PropertyList.Dictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension PropertyList.Dictionary: Hashable {
    /// Equal when both hold the same keys, scalar for scalar, each with an equal value, in any order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for rank in lhs.valueStorage.indices {
            let left = lhs.position(ofRank: rank)
            let right = rhs.position(ofRank: rank)
            guard UTF8Bytes.equal(lhs.keyTable[left], rhs.keyTable[right]),
                lhs.valueStorage[left] == rhs.valueStorage[right]
            else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for rank in valueStorage.indices {
            let position = position(ofRank: rank)
            UTF8Bytes.hash(keyTable[position], into: &hasher)
            hasher.combine(valueStorage[position])
        }
    }
}

extension PropertyList.Dictionary: CustomStringConvertible {
    public var description: String {
        "[" + map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
