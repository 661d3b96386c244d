/// Text compared, hashed and ordered by its UTF-8 bytes.
///
/// Swift's `String` equality (and so `Dictionary<String, _>` and `Set<String>`) is canonical equivalence:
/// `"caf\u{E9}"` and `"cafe\u{301}"` are equal there, though they are two document keys, two user ids, two
/// collection names to the store, to PostgreSQL and SQLite, and to every other program. Group or compare such
/// names through `ExactString` (or ``Swift/String/hasSameBytes(as:)``), never through `String ==`.
public struct ExactString: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The text.
    public let string: String

    /// `string`, compared by its bytes.
    public init(_ string: String) { self.string = string }

    /// A literal.
    public init(stringLiteral value: String) { self.string = value }

    public var description: String { string }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool { lhs.string.hasSameBytes(as: rhs.string) }

    /// Byte order, as SQLite's `BINARY` collation and `hangar`'s key listings sort.
    public static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)  // never a UTF-8 byte: ends the string, so concatenations differ
    }
}

extension String {
    /// Whether this string and `other` are the same bytes (UTF-8), not merely canonically equivalent.
    public func hasSameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}

extension Dictionary where Key == ExactString {
    /// The value for the name spelled with exactly `name`'s bytes: `collections["pilots"]`, `table[name]`.
    public subscript(_ name: String) -> Value? {
        get { self[ExactString(name)] }
        set { self[ExactString(name)] = newValue }
    }
}
