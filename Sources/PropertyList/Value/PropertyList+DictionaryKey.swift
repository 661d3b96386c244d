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
