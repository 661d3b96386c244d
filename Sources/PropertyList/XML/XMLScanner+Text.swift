// Text content: references, CDATA, the characters XML forbids, and the scalar elements built from text.

extension XMLScanner {
    /// Decodes the reference (`&name;`, `&#…;`, `&#x…;`) at `offset`; returns its scalar and the offset after it.
    func decodeReference(at offset: Int) throws(PropertyListError) -> (Unicode.Scalar, Int) {
        var index = offset + 1
        if index < reader.count, reader[index] == UInt8(ascii: "#") {
            index += 1
            var base: UInt32 = 10
            if index < reader.count, reader[index] == UInt8(ascii: "x") {
                base = 16
                index += 1
            }
            let digitsStart = index
            var value: UInt32 = 0
            while index < reader.count {
                let digit = UInt32(NumberText.hexDigitValue(reader[index]))
                guard digit < base else { break }
                // Eight digits hold every scalar; more is an attack on the arithmetic, not a character.
                guard index - digitsStart < 8 else {
                    throw failure(.syntax("Found a character reference that is too long"), at: offset)
                }
                value = value * base + digit
                index += 1
            }
            guard index > digitsStart, index < reader.count, reader[index] == UInt8(ascii: ";") else {
                throw failure(.syntax("Found a malformed character reference"), at: offset)
            }
            let allowed =
                value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
            guard allowed, let scalar = Unicode.Scalar(value) else {
                throw failure(
                    .disallowedCodePoint(
                        "Found a character reference to U+\(String(value, radix: 16, uppercase: true)), which XML does not allow"
                    ), at: offset)
            }
            return (scalar, index + 1)
        }
        let nameStart = index
        while index < reader.count, index - nameStart < 32, Self.isNameByte(reader[index]), reader[index] < 0x80 {
            index += 1
        }
        let name = String(decoding: reader.bytes(at: nameStart, count: index - nameStart), as: UTF8.self)
        guard !name.isEmpty else {
            throw failure(.syntax("Found '&' that does not start an entity reference (write &amp;)"), at: offset)
        }
        guard index < reader.count, reader[index] == UInt8(ascii: ";") else {
            throw failure(.syntax("Found entity reference &\(name) without its terminating ';'"), at: offset)
        }
        let scalar: Unicode.Scalar
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "apos": scalar = "'"
        case "quot": scalar = "\""
        default:
            throw failure(
                .syntax("Found unknown entity &\(name); (entities are never declared or expanded)"), at: offset)
        }
        return (scalar, index + 1)
    }

    /// Reads the text of a scalar element up to its closing tag, which it consumes.
    mutating func scanText(closing tag: Tag, openedAt tagOffset: Int) throws(PropertyListError) -> Text {
        let start = position
        var runStart = position
        var gathered = false
        // Every byte of the text OR-ed together: its high bit tells whether the text is all ASCII.
        var seen: UInt64 = 0
        let count = reader.count
        while position < count {
            let byte = reader[position]
            // Fast filter: only `&`, `<` and the 0xEF lead of U+FFFE/U+FFFF need a look.
            if byte != 0x26 && byte != 0x3C && byte != 0xEF {
                seen |= UInt64(byte)
                position = reader.skipPlainXMLText(from: position + 1, seen: &seen)
                continue
            }
            switch byte {
            case UInt8(ascii: "<"):
                let markup = position
                if markup + 1 < count, reader[markup + 1] == UInt8(ascii: "/") {
                    try scanEndTag(expecting: tag)
                    if !gathered {
                        return .region(start: start, count: markup - start, isASCII: seen & 0x8080_8080_8080_8080 == 0)
                    }
                    reader.append(from: runStart, count: markup - runStart, to: &scratch)
                    return .gathered
                }
                if !gathered {
                    scratch.removeAll(keepingCapacity: true)
                    gathered = true
                }
                reader.append(from: runStart, count: markup - runStart, to: &scratch)
                if reader.matches(Self.commentOpen, at: markup) {
                    try skipComment()
                } else if reader.matches(Self.cdataOpen, at: markup) {
                    try gatherCDATA()
                } else if reader.matches(Self.piOpen, at: markup) {
                    try skipProcessingInstruction(atDocumentStart: false)
                } else {
                    throw failure(.syntax("Found unexpected markup inside <\(tag.name)>"), at: markup)
                }
                runStart = position
            case UInt8(ascii: "&"):
                if !gathered {
                    scratch.removeAll(keepingCapacity: true)
                    gathered = true
                }
                reader.append(from: runStart, count: position - runStart, to: &scratch)
                let (scalar, next) = try decodeReference(at: position)
                UTF8.encode(scalar) { scratch.append($0) }
                position = next
                runStart = position
            case 0xEF:
                try checkNoncharacter(at: position)
                seen |= 0x80
                position += 1
            default:
                // Raw control characters are kept, as CF keeps them (TextMate wrote U+0003 and U+001B into
                // `.tmSnippet` and `.tmCommand` files). XML 1.0 does not allow them: ``XMLWriter`` refuses them.
                position += 1
            }
        }
        throw failure(.unclosedElement(tag.name, openedAt: nil), at: tagOffset)
    }

    /// Appends the content of `<![CDATA[ … ]]>` at `position` to `scratch`.
    mutating func gatherCDATA() throws(PropertyListError) {
        let offset = position
        let contentStart = position + Self.cdataOpen.count
        var index = contentStart
        while index < reader.count {
            let byte = reader[index]
            if byte == UInt8(ascii: "]"), index + 2 < reader.count, reader[index + 1] == UInt8(ascii: "]"),
                reader[index + 2] == UInt8(ascii: ">")
            {
                reader.append(from: contentStart, count: index - contentStart, to: &scratch)
                position = index + 3
                return
            }
            if byte == 0xEF { try checkNoncharacter(at: index) }
            index += 1
        }
        throw failure(.unterminated("CDATA section"), at: offset)
    }

    @inline(__always)
    func checkNoncharacter(at offset: Int) throws(PropertyListError) {
        if offset + 2 < reader.count, reader[offset + 1] == 0xBF, reader[offset + 2] & 0xFE == 0xBE {
            let scalar: UInt32 = reader[offset + 2] == 0xBE ? 0xFFFE : 0xFFFF
            throw failure(
                .invalidCharacter("Found character U+\(TextSnippet.hex4(scalar)), which XML does not allow"), at: offset
            )
        }
    }

    /// Calls `body` with the text's byte count and an accessor for its bytes.
    func withText<Result>(_ text: Text, _ body: (Int, (Int) -> UInt8) -> Result) -> Result {
        switch text {
        case .region(let start, let count, _):
            let reader = self.reader
            return body(count) { reader[start + $0] }
        case .gathered:
            let bytes = scratch
            return body(bytes.count) { bytes[$0] }
        }
    }

    /// Calls `body` with the text's bytes.
    func withTextBytes<Result>(_ text: Text, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch text {
        case .region(let start, let count, _): reader.withBytes(at: start, count: count, body)
        case .gathered: scratch.withUnsafeBytes(body)
        }
    }

    /// The text as a string; invalid UTF-8 is an error.
    func string(_ text: Text, at offset: Int) throws(PropertyListError) -> String {
        let decoded: String?
        switch text {
        case .region(let start, let count, let isASCII):
            // ASCII, known from the scan, needs no validation; other text is validated once.
            decoded = reader.withBytes(at: start, count: count) { bytes in
                isASCII ? KnownUTF8.string(bytes, isASCII: true) : validatedNonASCIIUTF8(bytes)
            }
        case .gathered: decoded = validatedUTF8(scratch)
        }
        guard let decoded else { throw failure(.invalidEncoding("Found invalid UTF-8"), at: offset) }
        return decoded
    }

    /// The text for a message: lossy, shortened.
    func snippet(_ text: Text) -> String {
        switch text {
        case .region(let start, let count, _):
            TextSnippet.of(String(decoding: reader.bytes(at: start, count: min(count, 200)), as: UTF8.self))
        case .gathered:
            TextSnippet.of(String(decoding: scratch.prefix(200), as: UTF8.self))
        }
    }

    /// The text of a `<key>` up to `</key>`, handed to the builder: the key the dictionary's template expects when
    /// the bytes are its bytes (no string made), else a string of its own.
    mutating func scanKey(openedAt offset: Int) throws(PropertyListError) {
        let contentStart = position
        let text = try scanText(closing: .key, openedAt: offset)
        if case .region(let start, let count, _) = text, let expected = builder.expectedKey {
            if reader.matches(expected, at: start, count: count) {
                builder.key(expected, isExpected: true)
            } else {
                builder.key(try string(text, at: contentStart), isExpected: false)
            }
            return
        }
        builder.key(try string(text, at: contentStart))
    }

    mutating func scanString(closing tag: Tag, openedAt offset: Int) throws(PropertyListError) -> String {
        let contentStart = position
        let text = try scanText(closing: tag, openedAt: offset)
        return try string(text, at: contentStart)
    }

    // MARK: - Scalars

    mutating func scanScalar(
        _ tag: Tag, selfClosing: Bool, openedAt offset: Int
    ) throws(PropertyListError) -> PropertyList {
        switch tag {
        case .string:
            return .string(selfClosing ? "" : try scanString(closing: .string, openedAt: offset))
        case .true, .false:
            if !selfClosing {
                let contentStart = position
                let text = try scanText(closing: tag, openedAt: offset)
                let blank = withText(text) { count, byte in
                    (0..<count).allSatisfy { NumberText.isXMLWhitespace(byte($0)) }
                }
                guard blank else { throw failure(.syntax("Found text inside <\(tag.name)>"), at: contentStart) }
            }
            return .boolean(tag == .true)
        case .data:
            if selfClosing { return .data([]) }
            let contentStart = position
            // The form writers emit, base64 and whitespace up to `</`, decoded straight from the input. Anything
            // else (a reference, a comment, a byte outside the alphabet) is read as text below, from the start.
            if let end = reader.firstIndex(of: UInt8(ascii: "<"), from: position, to: reader.count),
                end + 1 < reader.count, reader[end + 1] == UInt8(ascii: "/"),
                let bytes = reader.withBytes(at: position, count: end - position, { Base64.decode($0) })
            {
                position = end
                try scanEndTag(expecting: .data)
                return .data(bytes)
            }
            let text = try scanText(closing: .data, openedAt: offset)
            let bytes = withTextBytes(text) { Base64.decode($0) }
            guard let bytes else { throw failure(.invalidData("Found invalid base64 in <data>"), at: contentStart) }
            return .data(bytes)
        case .integer:
            guard !selfClosing else { throw failure(.invalidNumber("Found empty <integer>"), at: offset) }
            let contentStart = position
            let text = try scanText(closing: .integer, openedAt: offset)
            switch withText(text, { count, byte in NumberText.parseInteger(count: count, byte: byte) }) {
            case .value(let integer):
                return .integer(integer)
            case .syntax:
                throw failure(.invalidNumber("Found invalid integer \"\(snippet(text))\""), at: contentStart)
            case .outOfRange:
                throw failure(
                    .numberOutOfRange("Found integer \(snippet(text)) out of range (−2^63 … 2^64−1)"), at: contentStart)
            }
        case .real:
            guard !selfClosing else { throw failure(.invalidNumber("Found empty <real>"), at: offset) }
            let contentStart = position
            let text = try scanText(closing: .real, openedAt: offset)
            guard let value = withText(text, { count, byte in NumberText.parseReal(count: count, byte: byte) }) else {
                throw failure(.invalidNumber("Found invalid real \"\(snippet(text))\""), at: contentStart)
            }
            return .real(value)
        case .date:
            guard !selfClosing else { throw failure(.invalidDate("Found empty <date>"), at: offset) }
            let contentStart = position
            let text = try scanText(closing: .date, openedAt: offset)
            let seconds = withText(text) { count, byte in
                var start = 0
                var end = count
                while start < end, NumberText.isXMLWhitespace(byte(start)) { start += 1 }
                while end > start, NumberText.isXMLWhitespace(byte(end - 1)) { end -= 1 }
                return CalendarDate.parseISO8601(count: end - start) { byte(start + $0) }
            }
            guard let seconds else {
                throw failure(
                    .invalidDate("Found invalid date \"\(snippet(text))\" (expected YYYY-MM-DDTHH:MM:SSZ)"),
                    at: contentStart)
            }
            return .date(seconds)
        case .plist, .dict, .array, .key:
            // Containers and keys are handled by the caller; reaching here is a programming error.
            preconditionFailure("scanScalar called for <\(tag.name)>")
        }
    }
}
