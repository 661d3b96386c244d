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
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
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
    static func parseReal(_ text: String) -> Double? {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, isXMLWhitespace(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isXMLWhitespace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        let body = utf8[start..<end]
        guard !body.isEmpty else { return nil }
        var index = body.startIndex
        var negative = false
        if body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
            negative = body[index] == UInt8(ascii: "-")
            index = body.index(after: index)
        }
        let rest = body[index...]
        if let first = rest.first, first | 0x20 >= UInt8(ascii: "a"), first | 0x20 <= UInt8(ascii: "z") {
            let word = String(decoding: rest.map { $0 | 0x20 }, as: UTF8.self)
            switch word {
            case "nan": return .nan
            case "inf", "infinity": return negative ? -.infinity : .infinity
            default: return nil
            }
        }
        var sawDigit = false
        while index < body.endIndex, body[index] &- UInt8(ascii: "0") < 10 {
            sawDigit = true
            index = body.index(after: index)
        }
        if index < body.endIndex, body[index] == UInt8(ascii: ".") {
            index = body.index(after: index)
            while index < body.endIndex, body[index] &- UInt8(ascii: "0") < 10 {
                sawDigit = true
                index = body.index(after: index)
            }
        }
        guard sawDigit else { return nil }
        if index < body.endIndex, body[index] | 0x20 == UInt8(ascii: "e") {
            index = body.index(after: index)
            if index < body.endIndex, body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
                index = body.index(after: index)
            }
            let exponentStart = index
            while index < body.endIndex, body[index] &- UInt8(ascii: "0") < 10 { index = body.index(after: index) }
            guard index > exponentStart else { return nil }
        }
        guard index == body.endIndex else { return nil }
        return Double(Substring(body))
    }
}
