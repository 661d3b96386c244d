/// Parsing of the numeric text forms of the XML format (`<integer>`, `<real>`), shared by the readers.
enum NumberText {
    /// The outcome of parsing an integer.
    enum IntegerResult {
        case value(PropertyList.Integer)
        case syntax
        case outOfRange
    }

    /// Whether `byte` is XML whitespace (space, tab, LF, CR).
    @inline(__always)
    static func isXMLWhitespace(_ byte: UInt8) -> Bool {
        // One comparison and a bit test: bits 9, 10, 13 and 32 of the mask.
        byte <= 0x20 && (0x1_0000_2600 as UInt64) >> byte & 1 != 0
    }

    /// The value of `byte` as a digit in base 16 (0…15), or 16 or more when it is not one.
    @inline(__always)
    static func hexDigitValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: 16
        }
    }

    /// Parses `[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)`, with XML whitespace around it, in −2^63 … 2^64−1.
    static func parseInteger(count: Int, byte: (Int) -> UInt8) -> IntegerResult {
        var start = 0
        var end = count
        while start < end, isXMLWhitespace(byte(start)) { start += 1 }
        while end > start, isXMLWhitespace(byte(end - 1)) { end -= 1 }
        var index = start
        var negative = false
        if index < end, byte(index) == UInt8(ascii: "-") || byte(index) == UInt8(ascii: "+") {
            negative = byte(index) == UInt8(ascii: "-")
            index += 1
        }
        var base: UInt64 = 10
        if index + 1 < end, byte(index) == UInt8(ascii: "0"), byte(index + 1) | 0x20 == UInt8(ascii: "x") {
            base = 16
            index += 2
        }
        guard index < end else { return .syntax }
        var magnitude: UInt64 = 0
        var overflow = false
        while index < end {
            let digit = hexDigitValue(byte(index))
            guard UInt64(digit) < base else { return .syntax }
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: base)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
            overflow = overflow || o1 || o2
            magnitude = sum
            index += 1
        }
        if overflow { return .outOfRange }
        if negative {
            // −2^63 is the most negative value; its magnitude is Int64.max + 1.
            guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
            return .value(PropertyList.Integer(magnitude == 0 ? 0 : Int64(truncatingIfNeeded: 0 &- magnitude)))
        }
        return .value(PropertyList.Integer(magnitude))
    }

    /// Parses an XML `<real>`: `[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?`, or `nan`, `inf`, `infinity`
    /// in any case with an optional sign, with XML whitespace around it. Values too large for a `Double`
    /// become infinities, as `strtod` makes them.
    ///
    /// Read from the bytes: a number of at most 19 significant digits whose decimal exponent is within ±22 is
    /// exact in one IEEE operation (its digits and the power of ten are both exact doubles when the digits are
    /// below 2^53, so the one rounding is the correct one: Clinger's fast path); any other goes to the standard
    /// library's correctly rounded conversion.
    static func parseReal(count: Int, byte: (Int) -> UInt8) -> Double? {
        var start = 0
        var end = count
        while start < end, isXMLWhitespace(byte(start)) { start += 1 }
        while end > start, isXMLWhitespace(byte(end - 1)) { end -= 1 }
        guard start < end else { return nil }
        var index = start
        var negative = false
        if byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") {
            negative = byte(index) == UInt8(ascii: "-")
            index += 1
        }
        if index < end, byte(index) | 0x20 >= UInt8(ascii: "a"), byte(index) | 0x20 <= UInt8(ascii: "z") {
            return namedReal(from: index, to: end, negative: negative, byte: byte)
        }
        var digits: UInt64 = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        while index < end {
            let value = byte(index) &- UInt8(ascii: "0")
            if value < 10 {
                sawDigit = true
                // Leading zeros are not significant; digits past 19 would overflow (the slow path takes them).
                if digits != 0 || value != 0 { significant += 1 }
                if significant <= 19 { digits = digits &* 10 &+ UInt64(value) }
                if sawPoint { exponent -= 1 }
            } else if byte(index) == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        var written = 0
        if index < end, byte(index) | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end, byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") {
                exponentNegative = byte(index) == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            while index < end, byte(index) &- UInt8(ascii: "0") < 10 {
                // Capped: a longer exponent only makes the value 0 or infinite, which the slow path decides.
                if written < 100_000 { written = written * 10 + Int(byte(index) &- UInt8(ascii: "0")) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { written = -written }
        }
        guard index == end else { return nil }
        let power = exponent + written
        if significant <= 19, digits < 1 << 53, (-22...22).contains(power) {
            let value = power < 0 ? Double(digits) / exactPowersOfTen[-power] : Double(digits) * exactPowersOfTen[power]
            return negative ? -value : value
        }
        var text = ""
        text.unicodeScalars.reserveCapacity(end - start)
        for offset in start..<end { text.unicodeScalars.append(Unicode.Scalar(byte(offset))) }
        return Double(text)
    }

    /// `nan`, `inf` or `infinity` in any case at `start..<end`, after an optional sign.
    private static func namedReal(from start: Int, to end: Int, negative: Bool, byte: (Int) -> UInt8) -> Double? {
        var word: UInt64 = 0
        guard end - start <= 8 else { return nil }
        for offset in start..<end { word = word << 8 | UInt64(byte(offset) | 0x20) }
        switch word {
        case 0x6E_616E: return .nan  // "nan"
        case 0x69_6E66, 0x696E_6669_6E69_7479: return negative ? -.infinity : .infinity  // "inf", "infinity"
        default: return nil
        }
    }

    /// 10^0 … 10^22, each exactly a `Double`.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]
}
