/// Reads old-style ASCII (OpenStep / NeXTSTEP) property lists, as the appendix of Apple's Property List
/// Programming Guide describes them.
///
/// - Strings: quoted with `"` (or `'`), with CF's escapes: `\a \b \f \n \r \t \v`; `\ooo`, one to three octal
///   digits, a byte (taken modulo 256, as CF does) in the NeXTSTEP character set (ASCII below 0x80); `\Uxxxx`,
///   up to four hex digits, a UTF-16 code unit (`\U` without digits is U+0000, as in CF). Any other escaped
///   character stands for itself (`\"`, `\\`, `\x41` is `x41`). One difference from CF: `\u` followed by a hex
///   digit is read as `\U` is, as GNUstep reads it (CF reads `\u00e7` as `u00e7`); see ``OpenStepScanner``.
///   Surrogate pairs written as two escapes are joined; an unpaired surrogate is refused (CF keeps it).
///   Unquoted strings are runs of `[A-Za-z0-9_$+/:.-]`. Everything is a string: the format has no numbers,
///   Booleans or dates.
/// - Text: UTF-8, or UTF-16/UTF-32 with a byte order mark (``TextEncoding``; Xcode writes `.strings` files
///   in UTF-16).
/// - Data: `<0fab 12cd>`, hex digit pairs with whitespace anywhere.
/// - Arrays `( a, b, )` (a trailing comma is allowed), dictionaries `{ key = value; }` (`;` required after
///   every entry; the last duplicate key wins).
/// - Comments `// …` and `/* … */` between tokens.
/// - The root may also be a bare "strings file": `key = value; key2 = value2;` is read as a dictionary.
/// - Errors carry the line and column; nesting is bounded by ``DecodingLimits/maxDepth``.
enum OpenStepReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        let text = try TextEncoding.utf8Text(of: bytes, xmlDeclaration: false) ?? bytes
        return try withByteReader(text) { reader throws(PropertyListError) in
            var scanner = OpenStepScanner(reader: reader, limits: limits)
            return try scanner.scanDocument()
        }
    }
}

/// The byte-level parser behind ``OpenStepReader``: one pass, no recursion; the containers it opens live in a
/// ``ValueBuilder``.
///
/// Why `\u00e7` is `ç` here although CF reads it as `u00e7`: Apple's writers never write a lowercase `\u` (they
/// write `\U`), so a lowercase `\u` followed by hex digits comes from GNUstep, whose files (its own
/// `Resources/Languages`) mean the character by it, or from a person who meant the same. Reading it as CF does
/// would turn `"Fran\u00e7ais"` into `"Franu00e7ais"`, which no author intended. A `\u` not followed by a hex
/// digit stands for `u`, as it does in CF.
struct OpenStepScanner: TextScanner {
    let reader: ByteReader
    private var builder: ValueBuilder
    private var position = 0
    private var scratch: [UInt8] = []
    /// Whether the root is a strings file, a dictionary without braces that ends with the input.
    private var isStringsFile = false

    init(reader: ByteReader, limits: DecodingLimits) {
        self.reader = reader
        builder = ValueBuilder(reader: reader, limits: limits)
    }

    @inline(__always)
    private static func isUnquoted(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z") { return true }
        if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { return true }
        switch byte {
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Skips whitespace and comments.
    private mutating func skipBlanks() throws(PropertyListError) {
        while position < reader.count {
            let byte = reader[position]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
                position += 1
            case UInt8(ascii: "/") where position + 1 < reader.count && reader[position + 1] == UInt8(ascii: "/"):
                position += 2
                while position < reader.count, reader[position] != 0x0A, reader[position] != 0x0D { position += 1 }
            case UInt8(ascii: "/") where position + 1 < reader.count && reader[position + 1] == UInt8(ascii: "*"):
                let open = position
                position += 2
                while true {
                    guard let star = reader.firstIndex(of: UInt8(ascii: "*"), from: position, to: reader.count) else {
                        throw failure(.unterminated("comment"), at: open)
                    }
                    position = star + 1
                    if position < reader.count, reader[position] == UInt8(ascii: "/") {
                        position += 1
                        break
                    }
                }
            default:
                return
            }
        }
    }

    mutating func scanDocument() throws(PropertyListError) -> PropertyList {
        if reader.matches([0xEF, 0xBB, 0xBF], at: 0) { position = 3 }
        try skipBlanks()
        guard position < reader.count else {
            throw failure(.syntax("Found no value (the input is empty)"), at: position)
        }
        while true {
            if let root = try scanNextValue() {
                try skipBlanks()
                guard position == reader.count else {
                    throw failure(.syntax("Found \(found(at: position)) after the root value"), at: position)
                }
                return root
            }
        }
    }

    /// One value (or the start of a container) and every container it closes; the root once it is complete.
    private mutating func scanNextValue() throws(PropertyListError) -> PropertyList? {
        try skipBlanks()
        guard position < reader.count else {
            throw failure(.syntax("Found the end of the input where a value was expected"), at: position)
        }
        let offset = position
        let finished: PropertyList?
        switch reader[position] {
        case UInt8(ascii: "("):
            try builder.beginArray(at: offset)
            position += 1
            try skipBlanks()
            guard position < reader.count, reader[position] == UInt8(ascii: ")") else { return nil }
            position += 1
            finished = builder.endArray()
        case UInt8(ascii: "{"):
            try builder.beginDictionary(at: offset)
            position += 1
            try skipBlanks()
            guard position < reader.count, reader[position] == UInt8(ascii: "}") else {
                builder.key(try scanKey())
                return nil
            }
            position += 1
            finished = builder.endDictionary()
        case UInt8(ascii: "<"):
            finished = try builder.scalar(.data(try scanData()), at: offset)
        case let byte where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || Self.isUnquoted(byte):
            let string = Self.isUnquoted(byte) ? scanUnquoted() : try scanQuoted()
            if builder.depth == 0, try startsStringsFile(key: string, at: offset) { return nil }
            finished = try builder.scalar(.string(string), at: offset)
        default:
            throw failure(.syntax("Found \(found(at: position)) where a value was expected"), at: position)
        }
        if let finished { return finished }
        return try scanSeparatorsAndClosers()
    }

    /// A root string followed by `=` starts a strings file (`key = value; …` without braces), read as a dictionary.
    private mutating func startsStringsFile(key: String, at offset: Int) throws(PropertyListError) -> Bool {
        try skipBlanks()
        guard position < reader.count, reader[position] == UInt8(ascii: "=") else { return false }
        position += 1
        try builder.beginDictionary(at: offset)
        builder.key(key)
        isStringsFile = true
        return true
    }

    /// After a value inside a container: `,` or `;` (and the next key), or closers, each handing its container on.
    private mutating func scanSeparatorsAndClosers() throws(PropertyListError) -> PropertyList? {
        while let container = builder.current {
            try skipBlanks()
            if container == .array {
                guard position < reader.count else {
                    throw failure(.syntax("Found the end of the input where ',' or ')' was expected"), at: position)
                }
                if reader[position] == UInt8(ascii: ",") {
                    position += 1
                    try skipBlanks()
                    // A trailing comma before `)` is allowed.
                    guard position < reader.count, reader[position] == UInt8(ascii: ")") else { return nil }
                } else if reader[position] != UInt8(ascii: ")") {
                    throw failure(.syntax("Found \(found(at: position)) where ',' or ')' was expected"), at: position)
                }
                position += 1
                if let root = builder.endArray() { return root }
                continue
            }
            guard position < reader.count, reader[position] == UInt8(ascii: ";") else {
                let key = TextSnippet.of(builder.lastKey ?? "")
                throw failure(
                    .syntax("Found \(found(at: position)) where ';' was expected after the value of key \"\(key)\""),
                    at: position)
            }
            position += 1
            try skipBlanks()
            let bare = isStringsFile && builder.depth == 1
            let closes =
                bare ? position == reader.count : position < reader.count && reader[position] == UInt8(ascii: "}")
            if !closes {
                builder.key(try scanKey())
                return nil
            }
            if !bare { position += 1 }
            if let root = builder.endDictionary() { return root }
        }
        return nil
    }

    /// `key =`: a dictionary key (quoted or unquoted) and its `=`.
    private mutating func scanKey() throws(PropertyListError) -> String {
        try skipBlanks()
        guard position < reader.count else {
            throw failure(.syntax("Found the end of the input where a key was expected"), at: position)
        }
        let key: String
        switch reader[position] {
        case UInt8(ascii: "\""), UInt8(ascii: "'"): key = try scanQuoted()
        case let byte where Self.isUnquoted(byte): key = scanUnquoted()
        default: throw failure(.syntax("Found \(found(at: position)) where a key was expected"), at: position)
        }
        try skipBlanks()
        guard position < reader.count, reader[position] == UInt8(ascii: "=") else {
            throw failure(
                .syntax("Found \(found(at: position)) where '=' was expected after key \"\(TextSnippet.of(key))\""),
                at: position)
        }
        position += 1
        return key
    }

    private mutating func scanUnquoted() -> String {
        let start = position
        while position < reader.count, Self.isUnquoted(reader[position]) { position += 1 }
        // Unquoted bytes are ASCII by construction.
        return reader.asciiString(at: start, count: position - start) ?? ""
    }

    private mutating func scanData() throws(PropertyListError) -> [UInt8] {
        let open = position
        position += 1
        var bytes: [UInt8] = []
        var high: UInt8?
        while position < reader.count {
            let byte = reader[position]
            switch byte {
            case UInt8(ascii: ">"):
                guard high == nil else {
                    throw failure(.syntax("Found an odd number of hex digits in data"), at: open)
                }
                position += 1
                return bytes
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
                break
            default:
                let digit = NumberText.hexDigitValue(byte)
                guard digit < 16 else {
                    throw failure(.syntax("Found \(found(at: position)) in data (expected hex digits)"), at: position)
                }
                if let first = high {
                    bytes.append(first << 4 | digit)
                    high = nil
                } else {
                    high = digit
                }
            }
            position += 1
        }
        throw failure(.unterminated("data"), at: open)
    }

    private mutating func scanQuoted() throws(PropertyListError) -> String {
        let open = position
        let quote = reader[position]
        position += 1
        let start = position
        while position < reader.count, reader[position] != quote, reader[position] != UInt8(ascii: "\\") {
            position += 1
        }
        guard position < reader.count else { throw failure(.unterminated("string"), at: open) }
        if reader[position] == quote {
            guard let string = reader.utf8String(at: start, count: position - start) else {
                throw failure(.invalidEncoding("Found invalid UTF-8 in a string"), at: start)
            }
            position += 1
            return string
        }
        scratch.removeAll(keepingCapacity: true)
        reader.append(from: start, count: position - start, to: &scratch)
        while position < reader.count {
            let byte = reader[position]
            if byte == quote {
                position += 1
                guard let string = validatedUTF8(scratch) else {
                    throw failure(.invalidEncoding("Found invalid UTF-8 in a string"), at: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") {
                try scanEscape()
            } else {
                scratch.append(byte)
                position += 1
            }
        }
        throw failure(.unterminated("string"), at: open)
    }

    private mutating func scanEscape() throws(PropertyListError) {
        let offset = position
        guard position + 1 < reader.count else { throw failure(.unterminated("string"), at: offset) }
        let byte = reader[position + 1]
        position += 2
        switch byte {
        case UInt8(ascii: "a"): scratch.append(0x07)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "v"): scratch.append(0x0B)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = Int(byte - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, position < reader.count, reader[position] &- UInt8(ascii: "0") < 8 {
                value = value * 8 + Int(reader[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            // CF keeps the value in a byte (`\400` is `\0`) and reads it in the NeXTSTEP character set.
            let code = value & 0xFF
            // 0xFE and 0xFF have no NeXTSTEP character; CF reads them as U+0000, the table's 0.
            let unit = code < 0x80 ? UInt16(code) : CharacterTables.nextStep[code - 0x80]
            // Every table entry is a scalar of the Basic Multilingual Plane outside the surrogates.
            if let scalar = Unicode.Scalar(unit) { UTF8.encode(scalar) { scratch.append($0) } }
        case UInt8(ascii: "U"):
            try scanUnitEscape(at: offset)
        case UInt8(ascii: "u") where position < reader.count && NumberText.hexDigitValue(reader[position]) < 16:
            // GNUstep's meaning (see the type's documentation); CF would read `u` and the digits as text.
            try scanUnitEscape(at: offset)
        default:
            // Any other escaped character stands for itself, as in CF: `\"`, `\'`, `\\`, a newline, `\x`, `\u`
            // without hex digits. A non-ASCII character's other bytes follow as ordinary text.
            scratch.append(byte)
        }
    }

    /// The code unit of `\U` (or GNUstep's `\u`) and its hex digits before `position`, joined with a following
    /// low-surrogate escape when it is a high surrogate; appended to `scratch` as UTF-8.
    private mutating func scanUnitEscape(at offset: Int) throws(PropertyListError) {
        var value = scanHexUnit()
        let unpaired = CodecFailure.unpairedSurrogate("Found an unpaired surrogate \\U\(TextSnippet.hex4(value))")
        if (0xDC00...0xDFFF).contains(value) { throw failure(unpaired, at: offset) }
        if (0xD800...0xDBFF).contains(value) {
            let next = position
            guard next + 1 < reader.count, reader[next] == UInt8(ascii: "\\"),
                reader[next + 1] | 0x20 == UInt8(ascii: "u")
            else { throw failure(unpaired, at: offset) }
            position += 2
            let low = scanHexUnit()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure(unpaired, at: offset) }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw failure(unpaired, at: offset) }
        UTF8.encode(scalar) { scratch.append($0) }
    }

    /// Up to four hex digits after `\U` (none reads as 0, as in CF).
    private mutating func scanHexUnit() -> UInt32 {
        var value: UInt32 = 0
        var digits = 0
        while digits < 4, position < reader.count {
            let digit = NumberText.hexDigitValue(reader[position])
            guard digit < 16 else { break }
            value = value << 4 | UInt32(digit)
            position += 1
            digits += 1
        }
        return value
    }
}
