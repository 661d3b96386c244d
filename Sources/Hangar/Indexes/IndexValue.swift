package import PropertyList

/// How index values are stored: an order-preserving byte encoding, kept as a SQLite BLOB, so that SQLite's
/// byte comparison (`memcmp`, then length) gives exactly the order of the values.
///
/// A value is a type tag, then a big-endian sortable encoding:
///
/// - Booleans (`0x10`): one byte, `false` before `true`.
/// - Numbers (`0x20`): integers (the whole range, −2^63 … 2^64−1) and reals in one numeric order, exactly:
///   a sign class (−∞, negative, zero, positive, +∞), then for finite non-zero values the binary exponent
///   (16 bits, biased) and the 64 bits after the leading one bit, all inverted for negatives. `3` equals
///   `3.0`; `-0.0` equals `0.0` and `0`; 2^64−1 and 2^64−2 differ. NaN is never indexed or found.
/// - Dates (`0x30`): their seconds since 2001 encoded as a number.
/// - Strings (`0x40`): their UTF-8 bytes (scalar order; NUL characters included as they are).
/// - Data (`0x50`): its bytes.
/// - UIDs (`0x60`): their value in 4 big-endian bytes (a UID is never equal to the integer of the same value).
///
/// Arrays and dictionaries are not index values.
package enum IndexValue {
    static let booleanTag: UInt8 = 0x10
    static let numberTag: UInt8 = 0x20
    static let dateTag: UInt8 = 0x30
    static let stringTag: UInt8 = 0x40
    static let dataTag: UInt8 = 0x50
    static let uidTag: UInt8 = 0x60

    /// The stored form of `value`, or `nil` when `value` is not indexed (NaN, arrays, dictionaries).
    package static func encoded(_ value: PropertyList) -> [UInt8]? {
        switch value {
        case .boolean(let flag): return [booleanTag, flag ? 1 : 0]
        case .integer(let integer):
            if let signed = integer.int64Value, signed < 0 {
                return [numberTag] + magnitude(signed.magnitude, negative: true)
            }
            return [numberTag] + magnitude(integer.uint64Value ?? 0, negative: false)
        case .real(let real): return number(real).map { [numberTag] + $0 }
        case .date(let seconds): return number(seconds).map { [dateTag] + $0 }
        case .string(let string): return [stringTag] + Array(string.utf8)
        case .data(let bytes): return [dataTag] + bytes
        case .uid(let uid):
            return [
                uidTag, UInt8(truncatingIfNeeded: uid >> 24), UInt8(truncatingIfNeeded: uid >> 16),
                UInt8(truncatingIfNeeded: uid >> 8), UInt8(truncatingIfNeeded: uid),
            ]
        case .array, .dictionary: return nil
        }
    }

    /// The conditions on an encoded value of a range query from `lower` to `upper` (both included), as (bound,
    /// comparison operator) pairs: with one bound missing, the range stops at the end of the other bound's type
    /// (`from: 2` is every number from 2 up, not the dates and strings after them). `nil` when a bound cannot be
    /// indexed (NaN, a container): such a range finds nothing.
    package static func rangeConditions(from lower: PropertyList?, to upper: PropertyList?)
        -> [(bound: [UInt8], comparison: String)]?
    {
        var low: [UInt8]?
        var high: [UInt8]?
        if let lower {
            guard let encoded = encoded(lower) else { return nil }
            low = encoded
        }
        if let upper {
            guard let encoded = encoded(upper) else { return nil }
            high = encoded
        }
        var conditions: [(bound: [UInt8], comparison: String)] = []
        if let low {
            conditions.append((low, ">="))
            if high == nil, let tag = low.first { conditions.append(([tag + 1], "<")) }
        }
        if let high {
            conditions.append((high, "<="))
            if low == nil, let tag = high.first { conditions.append(([tag], ">=")) }
        }
        return conditions
    }

    // Sign classes of numbers.
    private static let negativeInfinity: UInt8 = 1
    private static let negative: UInt8 = 2
    private static let zero: UInt8 = 3
    private static let positive: UInt8 = 4
    private static let positiveInfinity: UInt8 = 5
    /// Added to binary exponents (−1074 … 1023 for reals, 0 … 63 for integers) to keep them positive.
    private static let exponentBias = 2_000

    private static func magnitude(_ value: UInt64, negative isNegative: Bool) -> [UInt8] {
        guard value != 0 else { return [zero] }
        let shift = value.leadingZeroBitCount
        // The bits after the leading one, left-aligned (a shift by 64 gives 0).
        return finite(exponent: 63 - shift, fraction: value << UInt64(shift + 1), negative: isNegative)
    }

    private static func number(_ value: Double) -> [UInt8]? {
        if value.isNaN { return nil }
        if value == 0 { return [zero] }
        if value.isInfinite { return [value < 0 ? negativeInfinity : positiveInfinity] }
        // `exponent` and `significand` are normalized for subnormals too: significand is in 1 ..< 2.
        let fraction = value.magnitude.significand.significandBitPattern << 12
        return finite(exponent: Int(value.exponent), fraction: fraction, negative: value < 0)
    }

    private static func finite(exponent: Int, fraction: UInt64, negative isNegative: Bool) -> [UInt8] {
        let biased = UInt16(exponent + exponentBias)
        var bytes: [UInt8] = [UInt8(biased >> 8), UInt8(biased & 0xFF)]
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((fraction >> UInt64(shift)) & 0xFF)) }
        // A larger magnitude is a smaller negative number: invert, so bytes order as values do.
        return isNegative ? [negative] + bytes.map { ~$0 } : [positive] + bytes
    }
}
