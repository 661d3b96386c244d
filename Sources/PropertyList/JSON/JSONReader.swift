/// Reads JSON (RFC 8259, strictly) into a property list, for `hangar convert` of JSON files.
///
/// Objects become dictionaries (a duplicate key: the last wins, as in the XML and binary readers), arrays
/// arrays, strings strings, `true`/`false` Booleans. A number without fraction or exponent is an integer
/// (−2^63 … 2^64−1, else ``PropertyListError/Code/invalidValue``); any other number is a real, and one too
/// large for a `Double` is an error. `null` has no property-list form: ``PropertyListError/Code/unsupported``.
/// An optional UTF-8 BOM is skipped. Errors carry the line and column.
enum JSONReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        try withByteReader(bytes) { reader throws(PropertyListError) in
            var scanner = JSONScanner(reader: reader, limits: limits)
            return try scanner.scanDocument()
        }
    }
}

/// The byte-level JSON parser behind ``JSONReader``: one pass, no recursion; the containers it opens live in a
/// ``ValueBuilder``.
struct JSONScanner: TextScanner {
    let reader: ByteReader
    private var builder: ValueBuilder
    private var position = 0
    private var scratch: [UInt8] = []

    init(reader: ByteReader, limits: DecodingLimits) {
        self.reader = reader
        builder = ValueBuilder(reader: reader, limits: limits, containerNoun: "arrays or objects")
    }

    private mutating func skipWhitespace() {
        while position < reader.count {
            switch reader[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func scanDocument() throws(PropertyListError) -> PropertyList {
        if reader.matches([0xEF, 0xBB, 0xBF], at: 0) { position = 3 }
        while true {
            if let root = try scanNextValue() {
                skipWhitespace()
                guard position == reader.count else {
                    throw failure(.syntax("Found \(found(at: position)) after the JSON value"), at: position)
                }
                return root
            }
        }
    }

    /// One value (or the start of a container) and every container it closes; the root once it is complete.
    private mutating func scanNextValue() throws(PropertyListError) -> PropertyList? {
        skipWhitespace()
        let offset = position
        guard position < reader.count else {
            throw failure(.syntax("Found the end of the input where a value was expected"), at: position)
        }
        var finished: PropertyList?
        switch reader[position] {
        case UInt8(ascii: "["):
            try builder.beginArray(at: offset)
            position += 1
            skipWhitespace()
            guard position < reader.count, reader[position] == UInt8(ascii: "]") else { return nil }
            position += 1
            finished = builder.endArray()
        case UInt8(ascii: "{"):
            try builder.beginDictionary(at: offset)
            position += 1
            skipWhitespace()
            guard position < reader.count, reader[position] == UInt8(ascii: "}") else {
                builder.key(try scanKey())
                return nil
            }
            position += 1
            finished = builder.endDictionary()
        case UInt8(ascii: "\""):
            finished = try builder.scalar(.string(try scanString()), at: offset)
        case UInt8(ascii: "t"):
            try expectLiteral(Self.trueLiteral)
            finished = try builder.scalar(true, at: offset)
        case UInt8(ascii: "f"):
            try expectLiteral(Self.falseLiteral)
            finished = try builder.scalar(false, at: offset)
        case UInt8(ascii: "n"):
            try expectLiteral(Self.nullLiteral)
            throw failure(.nullValue, at: offset)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            finished = try builder.scalar(try scanNumber(), at: offset)
        default:
            throw failure(.syntax("Found \(found(at: position)) where a value was expected"), at: position)
        }
        if let finished { return finished }
        return try scanSeparatorsAndClosers()
    }

    /// After a value inside a container: `,` (and the next key), or closers, each handing its container on.
    private mutating func scanSeparatorsAndClosers() throws(PropertyListError) -> PropertyList? {
        while let container = builder.current {
            skipWhitespace()
            let closer = container == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")
            let expected = "',' or '\(Character(UnicodeScalar(closer)))'"
            guard position < reader.count else {
                throw failure(.syntax("Found the end of the input where \(expected) was expected"), at: position)
            }
            let byte = reader[position]
            if byte == UInt8(ascii: ",") {
                position += 1
                if container == .dictionary { builder.key(try scanKey()) }
                return nil
            }
            guard byte == closer else {
                throw failure(.syntax("Found \(found(at: position)) where \(expected) was expected"), at: position)
            }
            position += 1
            let root = container == .array ? builder.endArray() : builder.endDictionary()
            if let root { return root }
        }
        return nil
    }

    /// `"key" :` — the key of an object entry, and its colon.
    private mutating func scanKey() throws(PropertyListError) -> String {
        skipWhitespace()
        guard position < reader.count, reader[position] == UInt8(ascii: "\"") else {
            throw failure(.syntax("Found \(found(at: position)) where an object key was expected"), at: position)
        }
        let key = try scanString()
        skipWhitespace()
        guard position < reader.count, reader[position] == UInt8(ascii: ":") else {
            throw failure(.syntax("Found \(found(at: position)) where ':' was expected"), at: position)
        }
        position += 1
        return key
    }

    private static let trueLiteral: [UInt8] = Array("true".utf8)
    private static let falseLiteral: [UInt8] = Array("false".utf8)
    private static let nullLiteral: [UInt8] = Array("null".utf8)

    private mutating func expectLiteral(_ literal: [UInt8]) throws(PropertyListError) {
        guard reader.matches(literal, at: position) else {
            throw failure(.syntax("Found \(found(at: position)) where a value was expected"), at: position)
        }
        position += literal.count
    }

    // MARK: Strings

    private mutating func scanString() throws(PropertyListError) -> String {
        let open = position
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < reader.count {
            let byte = reader[position]
            if byte == UInt8(ascii: "\"") {
                guard let string = reader.utf8String(at: start, count: position - start) else {
                    throw failure(.invalidEncoding("Found invalid UTF-8 in a string"), at: start)
                }
                position += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else {
                throw failure(
                    .invalidEscape(
                        "Found control character U+\(TextSnippet.hex4(UInt32(byte))) in a string (escape it)"),
                    at: position)
            }
            position += 1
        }
        scratch.removeAll(keepingCapacity: true)
        reader.append(from: start, count: position - start, to: &scratch)
        while position < reader.count {
            let byte = reader[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = validatedUTF8(scratch) else {
                    throw failure(.invalidEncoding("Found invalid UTF-8 in a string"), at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                try scanEscape()
            case ..<0x20:
                throw failure(
                    .invalidEscape(
                        "Found control character U+\(TextSnippet.hex4(UInt32(byte))) in a string (escape it)"),
                    at: position)
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw failure(.unterminated("string"), at: open)
    }

    private mutating func scanEscape() throws(PropertyListError) {
        let offset = position
        guard position + 1 < reader.count else { throw failure(.unterminated("escape"), at: offset) }
        let byte = reader[position + 1]
        position += 2
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var value = try scanHex4(escapeAt: offset)
            if (0xDC00...0xDFFF).contains(value) {
                throw failure(
                    .unpairedSurrogate("Found an unpaired surrogate \\u\(TextSnippet.hex4(value))"), at: offset)
            }
            if (0xD800...0xDBFF).contains(value) {
                guard reader.matches([UInt8(ascii: "\\"), UInt8(ascii: "u")], at: position) else {
                    throw failure(
                        .unpairedSurrogate("Found an unpaired surrogate \\u\(TextSnippet.hex4(value))"), at: offset)
                }
                let lowOffset = position
                position += 2
                let low = try scanHex4(escapeAt: lowOffset)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure(
                        .unpairedSurrogate("Found an unpaired surrogate \\u\(TextSnippet.hex4(value))"), at: offset)
                }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw failure(.invalidEscape("Found an invalid escape"), at: offset)
            }
            UTF8.encode(scalar) { scratch.append($0) }
        default:
            throw failure(.invalidEscape("Found invalid escape '\\\(TextSnippet.printable(byte))'"), at: offset)
        }
    }

    private mutating func scanHex4(escapeAt offset: Int) throws(PropertyListError) -> UInt32 {
        guard position + 4 <= reader.count else {
            throw failure(.invalidEscape("Found a short \\u escape"), at: offset)
        }
        var value: UInt32 = 0
        for index in position..<(position + 4) {
            let digit = NumberText.hexDigitValue(reader[index])
            guard digit < 16 else { throw failure(.invalidEscape("Found a short \\u escape"), at: offset) }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    // MARK: Numbers

    private func isDigit(_ offset: Int) -> Bool {
        offset < reader.count && reader[offset] &- UInt8(ascii: "0") < 10
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func scanNumber() throws(PropertyListError) -> PropertyList {
        let start = position
        var negative = false
        if reader[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard isDigit(position) else { throw failure(.syntax("Found a malformed number"), at: start) }
        if reader[position] == UInt8(ascii: "0"), isDigit(position + 1) {
            throw failure(.syntax("Found a number with a leading zero"), at: start)
        }
        let digitsStart = position
        while isDigit(position) { position += 1 }
        let digitsEnd = position
        var isInteger = true
        if position < reader.count, reader[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(position) else { throw failure(.syntax("Found a malformed number"), at: start) }
            while isDigit(position) { position += 1 }
        }
        if position < reader.count, reader[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < reader.count, reader[position] == UInt8(ascii: "+") || reader[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard isDigit(position) else { throw failure(.syntax("Found a malformed number"), at: start) }
            while isDigit(position) { position += 1 }
        }
        let text = reader.asciiString(at: start, count: position - start) ?? ""
        if isInteger {
            var magnitude: UInt64 = 0
            var overflow = false
            for index in digitsStart..<digitsEnd {
                let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = shifted.addingReportingOverflow(UInt64(reader[index] - UInt8(ascii: "0")))
                overflow = overflow || o1 || o2
                magnitude = sum
            }
            if !overflow, !negative { return .integer(PropertyList.Integer(magnitude)) }
            if !overflow, magnitude <= UInt64(Int64.max) + 1 {
                return .integer(PropertyList.Integer(magnitude == 0 ? 0 : Int64(truncatingIfNeeded: 0 &- magnitude)))
            }
            throw failure(
                .numberOutOfRange("Found integer \(TextSnippet.of(text)) out of range (−2^63 … 2^64−1)"), at: start)
        }
        guard let real = Double(text), real.isFinite else {
            throw failure(.numberOutOfRange("Found number \(TextSnippet.of(text)) out of range"), at: start)
        }
        return .real(real)
    }
}
