// Tags, attributes, comments, processing instructions and the DOCTYPE: the markup between values.

extension XMLScanner {
    static let piOpen: [UInt8] = Array("<?".utf8)
    static let commentOpen: [UInt8] = Array("<!--".utf8)
    static let cdataOpen: [UInt8] = Array("<![CDATA[".utf8)
    static let doctypeOpen: [UInt8] = Array("<!DOCTYPE".utf8)

    /// Whether `byte` may start a name: letters, `_`, `:`, and every byte of a non-ASCII character.
    @inline(__always)
    static func isNameStart(_ byte: UInt8) -> Bool {
        // A bit per byte value, 64 values a word; constants, so no table is loaded (or lazily made) per byte.
        let word: UInt64 =
            switch byte >> 6 {
            case 0: 0x0400_0000_0000_0000  // `:`
            case 1: 0x07FF_FFFE_87FF_FFFE  // A-Z, `_`, a-z
            default: ~0
            }
        return word >> (byte & 63) & 1 != 0
    }

    /// Whether `byte` may continue a name: a name-start byte, a digit, `-` or `.`.
    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        let word: UInt64 =
            switch byte >> 6 {
            case 0: 0x07FF_6000_0000_0000  // `-`, `.`, 0-9, `:`
            case 1: 0x07FF_FFFE_87FF_FFFE  // A-Z, `_`, a-z
            default: ~0
            }
        return word >> (byte & 63) & 1 != 0
    }

    /// Skips XML whitespace; returns whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < reader.count, NumberText.isXMLWhitespace(reader[position]) { position += 1 }
        return position > start
    }

    /// The tag named by the `length` bytes at `start`, if it is one of the plist vocabulary. The name's bytes
    /// are packed little-endian into a `UInt64` and compared with the packed names (no table, no loop).
    func tag(at start: Int, length: Int) -> Tag? {
        guard length >= 3, length <= 7 else { return nil }
        var packed: UInt64 = 0
        for index in 0..<length { packed |= UInt64(reader[start + index]) << (8 * UInt64(index)) }
        switch packed {
        case 0x79656B: return .key  // "key"
        case 0x74636964: return .dict  // "dict"
        case 0x61746164: return .data  // "data"
        case 0x65746164: return .date  // "date"
        case 0x6C616572: return .real  // "real"
        case 0x65757274: return .true  // "true"
        case 0x7473696C70: return .plist  // "plist"
        case 0x7961727261: return .array  // "array"
        case 0x65736C6166: return .false  // "false"
        case 0x676E69727473: return .string  // "string"
        case 0x72656765746E69: return .integer  // "integer"
        default: return nil
        }
    }

    /// The name at `start` of `length` bytes, for messages.
    func name(at start: Int, length: Int) -> String {
        TextSnippet.of(String(decoding: reader.bytes(at: start, count: min(length, 64)), as: UTF8.self))
    }

    /// Parses a start tag at `position` (a `<`): the name, attributes (only `<plist>` may have them), and `>`
    /// or `/>`. The attributes of `<plist>` are skipped unread up to the first `>`, as CF skips them (files in
    /// the wild have `<plist version=\"1.0\">`).
    mutating func scanStartTag() throws(PropertyListError) -> (tag: Tag, selfClosing: Bool, offset: Int) {
        let offset = position
        if let (tag, selfClosing, length) = knownStartTag(at: offset) {
            position += length
            return (tag, selfClosing, offset)
        }
        position += 1
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let length = position - nameStart
        guard length > 0, Self.isNameStart(reader[nameStart]) else {
            throw failure(.syntax("Found malformed markup"), at: offset)
        }
        guard let tag = tag(at: nameStart, length: length) else {
            throw failure(.syntax("Found unknown tag <\(name(at: nameStart, length: length))>"), at: offset)
        }
        if tag == .plist, position < reader.count, NumberText.isXMLWhitespace(reader[position]) {
            return (tag, try skipPlistAttributes(openedAt: offset), offset)
        }
        while true {
            let hadSpace = skipWhitespace()
            guard position < reader.count else {
                throw failure(.unterminated("tag <\(tag.name)>"), at: offset)
            }
            let byte = reader[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                return (tag, false, offset)
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < reader.count, reader[position + 1] == UInt8(ascii: ">") else {
                    throw failure(.syntax("Expected '>' after '/' in <\(tag.name)>"), at: position)
                }
                position += 2
                return (tag, true, offset)
            }
            guard hadSpace, Self.isNameStart(byte) else {
                throw failure(
                    .syntax("Found unexpected character '\(TextSnippet.printable(byte))' in tag <\(tag.name)>"),
                    at: position)
            }
            try scanAttribute(of: tag)
        }
    }

    /// The start tag at `offset` (a `<`) when it is one of the forms writers emit, `<name>` or `<name/>` with nothing
    /// else inside, found from one 8-byte load; its length in bytes. `nil` sends the tag through the full parse,
    /// which reads these forms the same way.
    @inline(__always)
    func knownStartTag(at offset: Int) -> (tag: Tag, selfClosing: Bool, length: Int)? {
        guard offset + 9 <= reader.count else { return nil }
        // The bytes after `<`, the first lowest: a name of n bytes and `>` are the low 8(n+1) bits.
        let word = reader.littleEndianUInt64(at: offset + 1)
        let four = word & 0xFFFF_FFFF
        let five = word & 0xFF_FFFF_FFFF
        let six = word & 0xFFFF_FFFF_FFFF
        let seven = word & 0xFF_FFFF_FFFF_FFFF
        switch UInt8(truncatingIfNeeded: word) {
        case UInt8(ascii: "k"):
            if four == 0x3E79_656B { return (.key, false, 5) }  // key>
        case UInt8(ascii: "s"):
            if seven == 0x3E_676E_6972_7473 { return (.string, false, 8) }  // string>
            if word == 0x3E2F_676E_6972_7473 { return (.string, true, 9) }  // string/>
        case UInt8(ascii: "i"):
            if word == 0x3E72_6567_6574_6E69 { return (.integer, false, 9) }  // integer>
        case UInt8(ascii: "r"):
            if five == 0x3E_6C61_6572 { return (.real, false, 6) }  // real>
        case UInt8(ascii: "d"):
            if five == 0x3E_7463_6964 { return (.dict, false, 6) }  // dict>
            if five == 0x3E_6174_6164 { return (.data, false, 6) }  // data>
            if five == 0x3E_6574_6164 { return (.date, false, 6) }  // date>
            if six == 0x3E2F_7463_6964 { return (.dict, true, 7) }  // dict/>
        case UInt8(ascii: "a"):
            if six == 0x3E79_6172_7261 { return (.array, false, 7) }  // array>
            if seven == 0x3E_2F79_6172_7261 { return (.array, true, 8) }  // array/>
        case UInt8(ascii: "t"):
            if six == 0x3E2F_6575_7274 { return (.true, true, 7) }  // true/>
        case UInt8(ascii: "f"):
            if seven == 0x3E_2F65_736C_6166 { return (.false, true, 8) }  // false/>
        default:
            break
        }
        return nil
    }

    /// Skips the attributes of `<plist …>` up to its `>`; returns whether the tag closes itself (`/>`).
    mutating func skipPlistAttributes(openedAt offset: Int) throws(PropertyListError) -> Bool {
        while position < reader.count, reader[position] != UInt8(ascii: ">"), reader[position] != UInt8(ascii: "<") {
            position += 1
        }
        guard position < reader.count, reader[position] == UInt8(ascii: ">") else {
            throw failure(.unterminated("tag <plist>"), at: offset)
        }
        position += 1
        return reader[position - 2] == UInt8(ascii: "/")
    }

    /// Refuses the attribute at `position`: no element but `<plist>` (whose attributes are skipped) has any.
    mutating func scanAttribute(of tag: Tag) throws(PropertyListError) {
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        throw failure(
            .syntax(
                "Found unexpected attribute \"\(name(at: nameStart, length: position - nameStart))\" on <\(tag.name)>"),
            at: nameStart)
    }

    /// Parses `</name>` at `position` and checks the name.
    mutating func scanEndTag(expecting expected: Tag) throws(PropertyListError) {
        // The form every writer emits, checked in one comparison (two for </string> and </integer>).
        let (word, mask, closingLength) = expected.closingPrefix
        if position + 8 <= reader.count, reader.littleEndianUInt64(at: position) & mask == word,
            closingLength <= 8 || reader.matches(expected.closingTag, at: position)
        {
            position += closingLength
            return
        }
        let offset = position
        position += 2
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let length = position - nameStart
        guard tag(at: nameStart, length: length) == expected else {
            throw failure(
                .syntax("Found </\(name(at: nameStart, length: length))> where </\(expected.name)> was expected"),
                at: offset)
        }
        skipWhitespace()
        guard position < reader.count, reader[position] == UInt8(ascii: ">") else {
            throw failure(.unterminated("closing tag </\(expected.name)>"), at: offset)
        }
        position += 1
    }

    /// Skips `<!-- … -->` at `position`. `--` inside a comment is an error, as in XML 1.0.
    mutating func skipComment() throws(PropertyListError) {
        let offset = position
        position += 4
        while let dash = reader.firstIndex(of: UInt8(ascii: "-"), from: position, to: reader.count) {
            if dash + 1 < reader.count, reader[dash + 1] == UInt8(ascii: "-") {
                guard dash + 2 < reader.count, reader[dash + 2] == UInt8(ascii: ">") else {
                    throw failure(.syntax("Found '--' inside a comment"), at: dash)
                }
                position = dash + 3
                return
            }
            position = dash + 1
        }
        throw failure(.unterminated("comment"), at: offset)
    }

    /// Skips `<? … ?>` at `position`. An XML declaration must come first (after blank lines at most); its encoding
    /// was read by ``TextEncoding`` before the scan.
    mutating func skipProcessingInstruction(atDocumentStart: Bool) throws(PropertyListError) {
        let offset = position
        position += 2
        let targetStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let target = position - targetStart
        guard target > 0 else { throw failure(.syntax("Found malformed processing instruction"), at: offset) }
        var end = position
        while true {
            guard let question = reader.firstIndex(of: UInt8(ascii: "?"), from: end, to: reader.count) else {
                throw failure(.unterminated("processing instruction"), at: offset)
            }
            if question + 1 < reader.count, reader[question + 1] == UInt8(ascii: ">") {
                end = question
                break
            }
            end = question + 1
        }
        let isDeclaration =
            target == 3 && reader[targetStart] | 0x20 == UInt8(ascii: "x")
            && reader[targetStart + 1] | 0x20 == UInt8(ascii: "m")
            && reader[targetStart + 2] | 0x20 == UInt8(ascii: "l")
        if isDeclaration {
            guard atDocumentStart else {
                throw failure(.syntax("Found an XML declaration after the start of the document"), at: offset)
            }
        }
        position = end + 2
    }

    /// Skips `<!DOCTYPE name [PUBLIC "…" "…" | SYSTEM "…"]>` at `position`. An internal subset (`[`) is
    /// refused: it is where entities are declared, and nothing declared there is ever expanded or fetched.
    ///
    /// Otherwise lenient, as CF is (it skips to the first `>`): a quote with no partner before the next `<` is an
    /// ordinary character (a tool that escaped its quotes, `PUBLIC \"-//Apple//DTD PLIST 1.0//EN\"`, may leave
    /// one alone), and so is a `<`.
    mutating func skipDoctype() throws(PropertyListError) {
        let offset = position
        position += Self.doctypeOpen.count
        while position < reader.count {
            let byte = reader[position]
            switch byte {
            case UInt8(ascii: ">"):
                position += 1
                return
            case UInt8(ascii: "["):
                throw failure(
                    .unsupportedFeature(
                        "Found an internal DTD subset; XML entity declarations are not supported in property lists"),
                    at: position)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                var close = position + 1
                while close < reader.count, reader[close] != byte, reader[close] != UInt8(ascii: "<") { close += 1 }
                position = close < reader.count && reader[close] == byte ? close + 1 : position + 1
            default:
                position += 1
            }
        }
        throw failure(.unterminated("DOCTYPE"), at: offset)
    }

    /// Skips whitespace, comments, processing instructions and whitespace character references between the
    /// elements of a container, stopping at the next tag (or the end of the input).
    mutating func skipBetweenElements(inside tag: Tag) throws(PropertyListError) {
        while position < reader.count {
            // Indentation: a run of whitespace, counted in a local (the scanner's own position is stored once).
            var index = position
            while index < reader.count {
                let space = reader[index]
                guard NumberText.isXMLWhitespace(space) else { break }
                index += 1
                // After a line break, the indentation: tabs or spaces, 8 at a time while they are all the same
                // (a deep document's lines are mostly that).
                guard space == 0x0A, index < reader.count else { continue }
                let indent = reader[index]
                guard indent == 0x09 || indent == 0x20 else { continue }
                let run = 0x0101_0101_0101_0101 &* UInt64(indent)
                while index + 8 <= reader.count, reader.littleEndianUInt64(at: index) == run { index += 8 }
            }
            position = index
            guard index < reader.count else { return }
            let byte = reader[index]
            if byte == UInt8(ascii: "<") {
                // Most `<` here start a tag: look at one byte before comparing longer openers.
                let next = position + 1 < reader.count ? reader[position + 1] : 0
                if next == UInt8(ascii: "!"), reader.matches(Self.commentOpen, at: position) {
                    try skipComment()
                } else if next == UInt8(ascii: "?") {
                    try skipProcessingInstruction(atDocumentStart: false)
                } else {
                    return
                }
            } else if byte == UInt8(ascii: "&") {
                // `&#32;` is whitespace in disguise; any other reference is text, which has no place here.
                let (scalar, next) = try decodeReference(at: position)
                guard scalar.value < 0x80, NumberText.isXMLWhitespace(UInt8(scalar.value)) else {
                    throw failure(.syntax("Found text inside <\(tag.name)>"), at: position)
                }
                position = next
            } else {
                throw failure(.syntax("Found text inside <\(tag.name)>"), at: position)
            }
        }
    }
}
