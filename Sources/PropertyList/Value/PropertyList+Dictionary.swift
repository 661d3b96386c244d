extension PropertyList {
    /// String keys to values, where two keys are the same only when they hold the same Unicode scalars.
    ///
    /// Swift's `Dictionary<String, …>` treats canonically equivalent strings as one key, so `"café"` spelt
    /// with U+00E9 and spelt with `e` + U+0301 would merge and a value would be lost. Here they are two keys,
    /// as they are in CoreFoundation, Python's `plistlib` and libplist.
    ///
    /// Entries are kept sorted in the order every writer emits them (by UTF-16 code unit, as `plutil` does),
    /// so iteration is deterministic, writing needs no sort, and a lookup is a binary search. Building from a
    /// sequence sorts once; adding keys in ascending order appends; adding an arbitrary key is O(n), so build
    /// a large dictionary with ``init(_:uniquingKeysWith:)`` rather than key by key.
    public struct Dictionary: Sendable {
        /// The keys, strictly ascending in ``PropertyList/DictionaryKey`` order.
        @usableFromInline var keyStorage: [String]
        /// `values[i]` belongs to `keys[i]`.
        @usableFromInline var valueStorage: [PropertyList]

        /// An empty dictionary.
        public init() {
            keyStorage = []
            valueStorage = []
        }

        /// A dictionary with room for `capacity` entries.
        public init(minimumCapacity capacity: Int) {
            self.init()
            reserveCapacity(capacity)
        }

        /// A dictionary of `entries`; when a key appears more than once, `combine` chooses the value
        /// (given the value so far and the later one).
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

        /// A dictionary of `entries`, whose keys are all different (a repeated key keeps its last value).
        public init<S: Sequence<(String, PropertyList)>>(uniqueKeysWithValues entries: S) {
            self.init(entries, uniquingKeysWith: { _, last in last })
        }

        /// A dictionary from parallel arrays whose keys are strictly ascending (``isAscending(_:)``).
        init(ascendingKeys keys: [String], values: [PropertyList]) {
            assert(keys.count == values.count && Self.isAscending(keys))
            keyStorage = keys
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

        /// A dictionary from parallel arrays, in any order; sorts only when the keys are not already ascending
        /// (files written by Apple's tools and by Hangar are), so reading such a file costs one pass.
        init(
            keys: [String], values: [PropertyList],
            uniquingKeysWith combine: (PropertyList, PropertyList) throws -> PropertyList
        ) rethrows {
            if Self.isAscending(keys) {
                keyStorage = keys
                valueStorage = values
                return
            }
            // A stable sort of positions keeps repeated keys in input order, so `combine` sees them in order.
            let order = keys.indices.sorted { left, right in
                let comparison = KeyOrder.compare(keys[left], keys[right])
                return comparison == 0 ? left < right : comparison < 0
            }
            var sortedKeys: [String] = []
            var sortedValues: [PropertyList] = []
            sortedKeys.reserveCapacity(keys.count)
            sortedValues.reserveCapacity(keys.count)
            for position in order {
                if let last = sortedKeys.last, KeyOrder.compare(last, keys[position]) == 0 {
                    sortedValues[sortedValues.count - 1] = try combine(
                        sortedValues[sortedValues.count - 1], values[position])
                } else {
                    sortedKeys.append(keys[position])
                    sortedValues.append(values[position])
                }
            }
            keyStorage = sortedKeys
            valueStorage = sortedValues
        }

        /// The number of entries.
        @inlinable public var count: Int { keyStorage.count }

        /// Whether there are no entries.
        @inlinable public var isEmpty: Bool { keyStorage.isEmpty }

        /// The keys, in writing order.
        public var keys: [String] { keyStorage }

        /// The values, in the order of their keys.
        public var values: [PropertyList] { valueStorage }

        /// Makes room for `capacity` entries.
        public mutating func reserveCapacity(_ capacity: Int) {
            keyStorage.reserveCapacity(capacity)
            valueStorage.reserveCapacity(capacity)
        }

        /// The value under `key` (compared scalar for scalar); assigning `nil` removes the key.
        public subscript(key: String) -> PropertyList? {
            get {
                guard case .found(let index) = search(key) else { return nil }
                return valueStorage[index]
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

        /// Sets the value under `key`; returns the value it replaced, if any.
        @discardableResult
        public mutating func updateValue(_ value: PropertyList, forKey key: String) -> PropertyList? {
            switch search(key) {
            case .found(let index):
                let old = valueStorage[index]
                valueStorage[index] = value
                return old
            case .insertionPoint(let index):
                keyStorage.insert(key, at: index)
                valueStorage.insert(value, at: index)
                return nil
            }
        }

        /// Removes `key`; returns its value, if it was present.
        @discardableResult
        public mutating func removeValue(forKey key: String) -> PropertyList? {
            guard case .found(let index) = search(key) else { return nil }
            keyStorage.remove(at: index)
            return valueStorage.remove(at: index)
        }

        /// Adds `other`'s entries; for a key in both, `combine` gets this dictionary's value and `other`'s.
        public mutating func merge(
            _ other: Dictionary, uniquingKeysWith combine: (PropertyList, PropertyList) throws -> PropertyList
        ) rethrows {
            guard !other.isEmpty else { return }
            guard !isEmpty else {
                self = other
                return
            }
            try self = Dictionary(
                keys: keyStorage + other.keyStorage, values: valueStorage + other.valueStorage,
                uniquingKeysWith: combine)
        }

        /// The entries for which `isIncluded` is true.
        public func filter(_ isIncluded: ((key: String, value: PropertyList)) throws -> Bool) rethrows -> Dictionary {
            var result = Dictionary()
            for entry in self where try isIncluded(entry) {
                result.keyStorage.append(entry.key)
                result.valueStorage.append(entry.value)
            }
            return result
        }

        /// The same keys with transformed values.
        public func mapValues(_ transform: (PropertyList) throws -> PropertyList) rethrows -> Dictionary {
            var result = self
            result.valueStorage = try valueStorage.map(transform)
            return result
        }

        private enum SearchResult {
            case found(Int)
            case insertionPoint(Int)
        }

        /// Binary search in key order; appending past the last key is checked first (builders add in order).
        private func search(_ key: String) -> SearchResult {
            guard let last = keyStorage.last else { return .insertionPoint(0) }
            let lastComparison = KeyOrder.compare(last, key)
            if lastComparison < 0 { return .insertionPoint(keyStorage.count) }
            if lastComparison == 0 { return .found(keyStorage.count - 1) }
            var low = 0
            var high = keyStorage.count - 1
            while low < high {
                let middle = (low + high) / 2
                let comparison = KeyOrder.compare(keyStorage[middle], key)
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
    @inlinable public var endIndex: Int { keyStorage.count }

    /// The entry at `position`, in key order.
    @inlinable public subscript(position: Int) -> Element {
        (keyStorage[position], valueStorage[position])
    }
}

extension PropertyList.Dictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension PropertyList.Dictionary: Hashable {
    /// Equal when both hold the same keys, scalar for scalar, each with an equal value.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.keyStorage.indices {
            guard UTF8Bytes.equal(lhs.keyStorage[index], rhs.keyStorage[index]),
                lhs.valueStorage[index] == rhs.valueStorage[index]
            else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in keyStorage.indices {
            UTF8Bytes.hash(keyStorage[index], into: &hasher)
            hasher.combine(valueStorage[index])
        }
    }
}

extension PropertyList.Dictionary: CustomStringConvertible {
    public var description: String {
        "[" + map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
    }
}

extension PropertyList {
    /// A dictionary key with exact identity: equal, hashed and ordered by its Unicode scalars (ordered by
    /// UTF-16 code unit, the order writers use), never by canonical equivalence.
    ///
    /// Use it where a set or dictionary of keys must agree with ``PropertyList/Dictionary``:
    /// `Set(["caf\u{E9}", "cafe\u{301}"].map(PropertyList.DictionaryKey.init)).count == 2`.
    public struct DictionaryKey: Sendable, Hashable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The key's text.
        public let string: String

        /// The key for `string`.
        public init(_ string: String) {
            self.string = string
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            UTF8Bytes.equal(lhs.string, rhs.string)
        }

        public static func < (lhs: Self, rhs: Self) -> Bool {
            KeyOrder.compare(lhs.string, rhs.string) < 0
        }

        public func hash(into hasher: inout Hasher) {
            UTF8Bytes.hash(string, into: &hasher)
        }

        public var description: String { string }
    }
}

/// Collects a dictionary's entries as a reader meets them; ``build()`` sorts once if needed and keeps the
/// last value of a repeated key, as Apple's readers, CPython and go-plist do.
struct DictionaryBuilder {
    private var keys: [String] = []
    private var values: [PropertyList] = []

    mutating func append(_ key: String, _ value: PropertyList) {
        keys.append(key)
        values.append(value)
    }

    /// The key of the entry appended last.
    var lastKey: String? { keys.last }

    func build() -> PropertyList.Dictionary {
        PropertyList.Dictionary(keys: keys, values: values, uniquingKeysWith: { _, last in last })
    }
}
