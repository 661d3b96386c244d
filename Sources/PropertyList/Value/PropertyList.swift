/// A property-list value: the eight kinds of value a `.plist` file can hold, and the UID that keyed archives use.
///
/// `PropertyList` is a plain value type. Equality is exact, so that every value survives a round trip
/// through any format as an equal value:
/// - strings compare by their Unicode scalars, not by canonical equivalence
///   (`"é"` precomposed and `"e\u{301}"` are different keys, as they are in Apple's and Python's readers);
/// - reals and dates compare by bit pattern, so `NaN == NaN` and `0.0 != -0.0`.
///
/// There is no null: a missing value is a missing dictionary key.
///
/// ``uid(_:)`` is the ninth case: the object reference of an `NSKeyedArchiver` archive (binary marker `8n`),
/// a value of its own as it is in CoreFoundation (`CFKeyedArchiverUID`), Foundation, `plistlib.UID` and
/// libplist (`PLIST_UID`). Being a case, not a dictionary that looks like one, it survives binary → binary
/// byte for byte, and JSON can refuse it; a `switch` that must handle every value sees it.
public enum PropertyList: Sendable {
    /// A Unicode string.
    case string(String)
    /// A whole number in −2^63 … 2^64−1.
    case integer(Integer)
    /// A 64-bit IEEE-754 floating-point number.
    case real(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// A moment, as seconds since 2001-01-01 00:00:00 UTC (Apple's reference date).
    case date(Double)
    /// Raw bytes.
    case data([UInt8])
    /// An ordered list of values.
    case array([PropertyList])
    /// String keys to values; keys are distinct by their Unicode scalars and kept in writing order.
    case dictionary(Dictionary)
    /// A keyed archive's object reference (a UID), 0 … 2^32−1 as in CoreFoundation. XML writes it as
    /// `<dict><key>CF$UID</key><integer>n</integer></dict>` and reads that dictionary back as a UID; JSON
    /// has no form for it.
    case uid(UInt32)
}

extension PropertyList {
    /// The name of this value's kind as the XML format spells it: `string`, `integer`, `real`, `true`/`false`
    /// (`boolean` here), `date`, `data`, `array`, `dict` (`dictionary` here).
    public var kindName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "uid"
        }
    }
}

// MARK: - Exact equality

extension PropertyList: Hashable {
    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a.unicodeScalarsEqual(b)
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.boolean(let a), .boolean(let b)): a == b
        case (.date(let a), .date(let b)): a.bitPattern == b.bitPattern
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.uid(let a), .uid(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let s):
            hasher.combine(0 as UInt8)
            s.hashScalars(into: &hasher)
        case .integer(let i):
            hasher.combine(1 as UInt8)
            hasher.combine(i)
        case .real(let r):
            hasher.combine(2 as UInt8)
            hasher.combine(r.bitPattern)
        case .boolean(let b):
            hasher.combine(3 as UInt8)
            hasher.combine(b)
        case .date(let d):
            hasher.combine(4 as UInt8)
            hasher.combine(d.bitPattern)
        case .data(let d):
            hasher.combine(5 as UInt8)
            UTF8Bytes.hash(d, into: &hasher)
        case .array(let a):
            hasher.combine(6 as UInt8)
            hasher.combine(a)
        case .dictionary(let d):
            hasher.combine(7 as UInt8)
            hasher.combine(d)
        case .uid(let u):
            hasher.combine(8 as UInt8)
            hasher.combine(u)
        }
    }
}

extension String {
    /// Scalar-for-scalar equality (Swift's `==` treats canonically equivalent strings as equal).
    @inline(__always)
    func unicodeScalarsEqual(_ other: String) -> Bool {
        UTF8Bytes.equal(self, other)
    }

    /// Hashes the exact UTF-8 bytes, consistent with `unicodeScalarsEqual`.
    @inline(__always)
    func hashScalars(into hasher: inout Hasher) {
        UTF8Bytes.hash(self, into: &hasher)
    }
}
