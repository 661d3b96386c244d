/// The byte-level XML property-list parser behind ``XMLReader``.
///
/// It walks the input once with an explicit stack (no recursion, so nesting costs heap, not stack), decodes
/// text only inside scalar elements, and takes a fast path for text without entities, CDATA or comments.
struct XMLScanner {
    /// The element names of the plist vocabulary.
    enum Tag: Equatable {
        case plist, dict, array, key, string, data, date, integer, real, `true`, `false`

        var name: String {
            switch self {
            case .plist: "plist"
            case .dict: "dict"
            case .array: "array"
            case .key: "key"
            case .string: "string"
            case .data: "data"
            case .date: "date"
            case .integer: "integer"
            case .real: "real"
            case .true: "true"
            case .false: "false"
            }
        }
    }

    /// Text content of a scalar element: a raw region of the input (the fast path), or the unescaped
    /// UTF-8 bytes gathered in `scratch`.
    enum Text {
        case region(start: Int, count: Int)
        case gathered
    }

    /// An open container: its tag and the offset of its start tag.
    private struct Frame {
        let tag: Tag
        let offset: Int
    }

    let reader: ByteReader
    let limits: DecodingLimits
    private var position = 0
    private var scratch: [UInt8] = []

    init(reader: ByteReader, limits: DecodingLimits) {
        self.reader = reader
        self.limits = limits
    }

    // MARK: - Errors

    private func failure(_ code: PropertyListError.Code, _ message: String, at offset: Int) -> PropertyListError {
        PropertyListError(code, message, at: TextLocation.location(of: offset, in: reader))
    }

    private func describe(offset: Int) -> String {
        "\(TextLocation.location(of: offset, in: reader))"
    }

    // MARK: - Document

    mutating func scanDocument() throws(PropertyListError) -> PropertyList {
        let count = reader.count
        if reader.matches([0xEF, 0xBB, 0xBF], at: 0) { position = 3 }
        // Blank lines before the XML declaration are allowed, as CF allows them; any other markup is not.
        var sawMarkup = false
        var sawDoctype = false
        while true {
            skipWhitespace()
            guard position < count else {
                throw failure(.malformed, "Found no root element", at: position)
            }
            guard reader[position] == UInt8(ascii: "<") else {
                throw failure(.malformed, "Found text before the root element", at: position)
            }
            if reader.matches(Self.piOpen, at: position) {
                try skipProcessingInstruction(atDocumentStart: !sawMarkup)
            } else if reader.matches(Self.commentOpen, at: position) {
                try skipComment()
            } else if reader.matches(Self.doctypeOpen, at: position) {
                guard !sawDoctype else { throw failure(.malformed, "Found a second DOCTYPE", at: position) }
                try skipDoctype()
                sawDoctype = true
            } else {
                break
            }
            sawMarkup = true
        }
        let value = try scanRoot()
        while true {
            skipWhitespace()
            if position >= count { break }
            if reader.matches(Self.piOpen, at: position) {
                try skipProcessingInstruction(atDocumentStart: false)
            } else if reader.matches(Self.commentOpen, at: position) {
                try skipComment()
            } else {
                throw failure(.malformed, "Found content after the root element", at: position)
            }
        }
        return value
    }

    /// Parses the root element (a `<plist>` wrapper or a bare value) and everything inside it.
    private mutating func scanRoot() throws(PropertyListError) -> PropertyList {
        var frames: [Frame] = []
        var arrays: [[PropertyList]] = []
        var dictionaries: [[String: PropertyList]] = []
        var pendingKeys: [String?] = []
        var plistValue: PropertyList?
        var depth = 0

        while true {
            if let frame = frames.last {
                try skipBetweenElements(inside: frame.tag)
                guard position < reader.count else {
                    throw failure(
                        .malformed,
                        "Found no closing tag for <\(frame.tag.name)> opened \(describe(offset: frame.offset))",
                        at: position)
                }
            }
            // `position` is at a `<` (skipBetweenElements stops only there; the root loop left it there).
            var finished: PropertyList
            if position + 1 < reader.count, reader[position + 1] == UInt8(ascii: "/") {
                guard let frame = frames.popLast() else {
                    throw failure(.malformed, "Found a closing tag where the root element was expected", at: position)
                }
                let endOffset = position
                try scanEndTag(expecting: frame.tag)
                switch frame.tag {
                case .array:
                    depth -= 1
                    finished = .array(arrays.removeLast())
                case .dict:
                    depth -= 1
                    if let key = pendingKeys.removeLast() {
                        throw failure(
                            .malformed, "Value missing for key \"\(Self.snippet(key))\" inside <dict>", at: endOffset)
                    }
                    finished = .dictionary(dictionaries.removeLast())
                default:
                    // `</plist>`: the document's value is complete.
                    guard let plistValue else {
                        throw failure(.malformed, "Found no value inside <plist>", at: endOffset)
                    }
                    return plistValue
                }
            } else {
                let (tag, selfClosing, offset) = try scanStartTag()
                let top = frames.last?.tag
                if top == .dict, pendingKeys[pendingKeys.count - 1] == nil {
                    guard tag == .key else {
                        throw failure(.malformed, "Found non-key inside <dict>", at: offset)
                    }
                    let key = selfClosing ? "" : try scanString(closing: .key, openedAt: offset)
                    pendingKeys[pendingKeys.count - 1] = key
                    continue
                }
                switch tag {
                case .key:
                    if top == .dict, let key = pendingKeys[pendingKeys.count - 1] {
                        throw failure(
                            .malformed, "Value missing for key \"\(Self.snippet(key))\" inside <dict>", at: offset)
                    }
                    throw failure(.malformed, "Found <key> \(Self.context(top))", at: offset)
                case .plist:
                    guard frames.isEmpty else {
                        throw failure(.malformed, "Found <plist> \(Self.context(top))", at: offset)
                    }
                    guard !selfClosing else {
                        throw failure(.malformed, "Found no value inside <plist>", at: offset)
                    }
                    frames.append(Frame(tag: .plist, offset: offset))
                    continue
                default:
                    break
                }
                if top == .plist, plistValue != nil {
                    throw failure(.malformed, "Found more than one value inside <plist>", at: offset)
                }
                switch tag {
                case .array, .dict:
                    // Each level costs heap here, but consumers recurse; the budget keeps them safe. An empty
                    // container counts as a level too, as it does for the writers.
                    guard depth < limits.maxDepth else {
                        throw failure(
                            .limitExceeded,
                            "Too many nested arrays or dictionaries (the limit is \(limits.maxDepth))",
                            at: offset)
                    }
                    if selfClosing {
                        finished = tag == .array ? .array([]) : .dictionary([:])
                    } else {
                        depth += 1
                        frames.append(Frame(tag: tag, offset: offset))
                        if tag == .array {
                            arrays.append([])
                        } else {
                            dictionaries.append([:])
                            pendingKeys.append(nil)
                        }
                        continue
                    }
                default:
                    finished = try scanScalar(tag, selfClosing: selfClosing, openedAt: offset)
                }
            }
            // Deliver the finished value to its parent.
            guard let parent = frames.last else { return finished }
            switch parent.tag {
            case .array:
                arrays[arrays.count - 1].append(finished)
            case .dict:
                // Duplicate keys: the last one wins, as in Apple's reader and in our binary reader.
                if let key = pendingKeys[pendingKeys.count - 1] {
                    dictionaries[dictionaries.count - 1][key] = finished
                    pendingKeys[pendingKeys.count - 1] = nil
                }
            default:
                plistValue = finished
            }
        }
    }

    private static func context(_ tag: Tag?) -> String {
        guard let tag else { return "outside <dict>" }
        return "inside <\(tag.name)>"
    }

    /// The first 40 characters of `text`, for messages.
    static func snippet(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "…"
    }

    // MARK: - Markup

    private static let piOpen: [UInt8] = Array("<?".utf8)
    private static let commentOpen: [UInt8] = Array("<!--".utf8)
    private static let cdataOpen: [UInt8] = Array("<![CDATA[".utf8)
    private static let doctypeOpen: [UInt8] = Array("<!DOCTYPE".utf8)

    @inline(__always)
    private static func isNameStart(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte >= 0x80
    }

    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// Skips XML whitespace; returns whether there was any.
    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < reader.count, NumberText.isXMLWhitespace(reader[position]) { position += 1 }
        return position > start
    }

    /// The tag named by the `length` bytes at `start`, if it is one of the plist vocabulary. The name's bytes
    /// are packed little-endian into a `UInt64` and compared with the packed names (no table, no loop).
    private func tag(at start: Int, length: Int) -> Tag? {
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
    private func name(at start: Int, length: Int) -> String {
        Self.snippet(String(decoding: reader.bytes(at: start, count: min(length, 64)), as: UTF8.self))
    }

    /// Parses a start tag at `position` (a `<`): the name, attributes (only `<plist>` may have them), and `>`
    /// or `/>`. The attributes of `<plist>` are skipped unread up to the first `>`, as CF skips them (files in
    /// the wild have `<plist version=\"1.0\">`).
    private mutating func scanStartTag() throws(PropertyListError) -> (tag: Tag, selfClosing: Bool, offset: Int) {
        let offset = position
        position += 1
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let length = position - nameStart
        guard length > 0, Self.isNameStart(reader[nameStart]) else {
            throw failure(.malformed, "Found malformed markup", at: offset)
        }
        guard let tag = tag(at: nameStart, length: length) else {
            throw failure(.malformed, "Found unknown tag <\(name(at: nameStart, length: length))>", at: offset)
        }
        if tag == .plist, position < reader.count, NumberText.isXMLWhitespace(reader[position]) {
            while position < reader.count, reader[position] != UInt8(ascii: ">") {
                guard reader[position] != UInt8(ascii: "<") else { break }
                position += 1
            }
            guard position < reader.count, reader[position] == UInt8(ascii: ">") else {
                throw failure(.malformed, "Found unterminated tag <plist>", at: offset)
            }
            position += 1
            return (tag, reader[position - 2] == UInt8(ascii: "/"), offset)
        }
        while true {
            let hadSpace = skipWhitespace()
            guard position < reader.count else {
                throw failure(.malformed, "Found unterminated tag <\(tag.name)>", at: offset)
            }
            let byte = reader[position]
            if byte == UInt8(ascii: ">") {
                position += 1
                return (tag, false, offset)
            }
            if byte == UInt8(ascii: "/") {
                guard position + 1 < reader.count, reader[position + 1] == UInt8(ascii: ">") else {
                    throw failure(.malformed, "Expected '>' after '/' in <\(tag.name)>", at: position)
                }
                position += 2
                return (tag, true, offset)
            }
            guard hadSpace, Self.isNameStart(byte) else {
                throw failure(
                    .malformed, "Found unexpected character '\(Self.printable(byte))' in tag <\(tag.name)>",
                    at: position)
            }
            try scanAttribute(of: tag)
        }
    }

    /// Refuses the attribute at `position`: no element but `<plist>` (whose attributes are skipped) has any.
    private mutating func scanAttribute(of tag: Tag) throws(PropertyListError) {
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        throw failure(
            .malformed,
            "Found unexpected attribute \"\(name(at: nameStart, length: position - nameStart))\" on <\(tag.name)>",
            at: nameStart)
    }

    /// Parses `</name>` at `position` and checks the name.
    private mutating func scanEndTag(expecting expected: Tag) throws(PropertyListError) {
        let offset = position
        position += 2
        let nameStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let length = position - nameStart
        guard tag(at: nameStart, length: length) == expected else {
            throw failure(
                .malformed,
                "Found </\(name(at: nameStart, length: length))> where </\(expected.name)> was expected", at: offset)
        }
        skipWhitespace()
        guard position < reader.count, reader[position] == UInt8(ascii: ">") else {
            throw failure(.malformed, "Found unterminated closing tag </\(expected.name)>", at: offset)
        }
        position += 1
    }

    /// Skips `<!-- … -->` at `position`. `--` inside a comment is an error, as in XML 1.0.
    private mutating func skipComment() throws(PropertyListError) {
        let offset = position
        position += 4
        while let dash = reader.firstIndex(of: UInt8(ascii: "-"), from: position, to: reader.count) {
            if dash + 1 < reader.count, reader[dash + 1] == UInt8(ascii: "-") {
                guard dash + 2 < reader.count, reader[dash + 2] == UInt8(ascii: ">") else {
                    throw failure(.malformed, "Found '--' inside a comment", at: dash)
                }
                position = dash + 3
                return
            }
            position = dash + 1
        }
        throw failure(.malformed, "Found unterminated comment", at: offset)
    }

    /// Skips `<? … ?>` at `position`. An XML declaration must come first (after blank lines at most); its encoding
    /// was read by ``TextEncoding`` before the scan.
    private mutating func skipProcessingInstruction(atDocumentStart: Bool) throws(PropertyListError) {
        let offset = position
        position += 2
        let targetStart = position
        while position < reader.count, Self.isNameByte(reader[position]) { position += 1 }
        let target = position - targetStart
        guard target > 0 else { throw failure(.malformed, "Found malformed processing instruction", at: offset) }
        var end = position
        while true {
            guard let question = reader.firstIndex(of: UInt8(ascii: "?"), from: end, to: reader.count) else {
                throw failure(.malformed, "Found unterminated processing instruction", at: offset)
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
                throw failure(.malformed, "Found an XML declaration after the start of the document", at: offset)
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
    private mutating func skipDoctype() throws(PropertyListError) {
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
                    .unsupported,
                    "Found an internal DTD subset; XML entity declarations are not supported in property lists",
                    at: position)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                var close = position + 1
                while close < reader.count, reader[close] != byte, reader[close] != UInt8(ascii: "<") { close += 1 }
                position = close < reader.count && reader[close] == byte ? close + 1 : position + 1
            default:
                position += 1
            }
        }
        throw failure(.malformed, "Found unterminated DOCTYPE", at: offset)
    }

    /// Skips whitespace, comments, processing instructions and whitespace character references between the
    /// elements of a container, stopping at the next tag (or the end of the input).
    private mutating func skipBetweenElements(inside tag: Tag) throws(PropertyListError) {
        while position < reader.count {
            let byte = reader[position]
            if NumberText.isXMLWhitespace(byte) {
                position += 1
            } else if byte == UInt8(ascii: "<") {
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
                    throw failure(.malformed, "Found text inside <\(tag.name)>", at: position)
                }
                position = next
            } else {
                throw failure(.malformed, "Found text inside <\(tag.name)>", at: position)
            }
        }
    }

    // MARK: - Text

    /// Decodes the reference (`&name;`, `&#…;`, `&#x…;`) at `offset`; returns its scalar and the offset after it.
    private func decodeReference(at offset: Int) throws(PropertyListError) -> (Unicode.Scalar, Int) {
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
                    throw failure(.malformed, "Found a character reference that is too long", at: offset)
                }
                value = value * base + digit
                index += 1
            }
            guard index > digitsStart, index < reader.count, reader[index] == UInt8(ascii: ";") else {
                throw failure(.malformed, "Found a malformed character reference", at: offset)
            }
            let allowed =
                value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
            guard allowed, let scalar = Unicode.Scalar(value) else {
                throw failure(
                    .invalidValue,
                    "Found a character reference to U+\(String(value, radix: 16, uppercase: true)), which XML does not allow",
                    at: offset)
            }
            return (scalar, index + 1)
        }
        let nameStart = index
        while index < reader.count, index - nameStart < 32, Self.isNameByte(reader[index]), reader[index] < 0x80 {
            index += 1
        }
        let name = String(decoding: reader.bytes(at: nameStart, count: index - nameStart), as: UTF8.self)
        guard !name.isEmpty else {
            throw failure(.malformed, "Found '&' that does not start an entity reference (write &amp;)", at: offset)
        }
        guard index < reader.count, reader[index] == UInt8(ascii: ";") else {
            throw failure(.malformed, "Found entity reference &\(name) without its terminating ';'", at: offset)
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
                .malformed, "Found unknown entity &\(name); (entities are never declared or expanded)", at: offset)
        }
        return (scalar, index + 1)
    }

    /// Reads the text of a scalar element up to its closing tag, which it consumes.
    private mutating func scanText(closing tag: Tag, openedAt tagOffset: Int) throws(PropertyListError) -> Text {
        let start = position
        var runStart = position
        var gathered = false
        let count = reader.count
        while position < count {
            let byte = reader[position]
            // Fast filter: every byte that needs a look is `<` (0x3C) or below, or the 0xEF lead of U+FFFE/U+FFFF.
            if byte > 0x3C && byte != 0xEF {
                position += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "<"):
                let markup = position
                if markup + 1 < count, reader[markup + 1] == UInt8(ascii: "/") {
                    try scanEndTag(expecting: tag)
                    if !gathered { return .region(start: start, count: markup - start) }
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
                    throw failure(.malformed, "Found unexpected markup inside <\(tag.name)>", at: markup)
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
                position += 1
            default:
                // Raw control characters are kept, as CF keeps them (TextMate wrote U+0003 and U+001B into
                // `.tmSnippet` and `.tmCommand` files). XML 1.0 does not allow them: ``XMLWriter`` refuses them.
                position += 1
            }
        }
        throw failure(.malformed, "Found no closing tag for <\(tag.name)>", at: tagOffset)
    }

    /// Appends the content of `<![CDATA[ … ]]>` at `position` to `scratch`.
    private mutating func gatherCDATA() throws(PropertyListError) {
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
        throw failure(.malformed, "Found unterminated CDATA section", at: offset)
    }

    @inline(__always)
    private func checkNoncharacter(at offset: Int) throws(PropertyListError) {
        if offset + 2 < reader.count, reader[offset + 1] == 0xBF, reader[offset + 2] & 0xFE == 0xBE {
            let scalar: UInt32 = reader[offset + 2] == 0xBE ? 0xFFFE : 0xFFFF
            throw failure(.malformed, "Found character U+\(Self.hex4(scalar)), which XML does not allow", at: offset)
        }
    }

    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{" + String(byte, radix: 16) + "}"
    }

    /// Calls `body` with the text's byte count and an accessor for its bytes.
    private func withText<Result>(_ text: Text, _ body: (Int, (Int) -> UInt8) -> Result) -> Result {
        switch text {
        case .region(let start, let count):
            let reader = self.reader
            return body(count) { reader[start + $0] }
        case .gathered:
            let bytes = scratch
            return body(bytes.count) { bytes[$0] }
        }
    }

    /// The text as a string; invalid UTF-8 is an error.
    private func string(_ text: Text, at offset: Int) throws(PropertyListError) -> String {
        let decoded: String?
        switch text {
        case .region(let start, let count): decoded = reader.utf8String(at: start, count: count)
        case .gathered: decoded = validatedUTF8(scratch)
        }
        guard let decoded else { throw failure(.invalidValue, "Found invalid UTF-8", at: offset) }
        return decoded
    }

    /// The text for a message: lossy, shortened.
    private func snippet(_ text: Text) -> String {
        switch text {
        case .region(let start, let count):
            Self.snippet(String(decoding: reader.bytes(at: start, count: min(count, 200)), as: UTF8.self))
        case .gathered:
            Self.snippet(String(decoding: scratch.prefix(200), as: UTF8.self))
        }
    }

    private mutating func scanString(closing tag: Tag, openedAt offset: Int) throws(PropertyListError) -> String {
        let contentStart = position
        let text = try scanText(closing: tag, openedAt: offset)
        return try string(text, at: contentStart)
    }

    // MARK: - Scalars

    private mutating func scanScalar(
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
                guard blank else { throw failure(.malformed, "Found text inside <\(tag.name)>", at: contentStart) }
            }
            return .boolean(tag == .true)
        case .data:
            if selfClosing { return .data([]) }
            let contentStart = position
            let text = try scanText(closing: .data, openedAt: offset)
            let bytes: [UInt8]? = withText(text) { count, byte in
                var decoder = Base64Decoder(expectedInputCount: count)
                for index in 0..<count where !decoder.feed(byte(index)) { return nil }
                return decoder.isComplete ? decoder.output : nil
            }
            guard let bytes else { throw failure(.invalidValue, "Found invalid base64 in <data>", at: contentStart) }
            return .data(bytes)
        case .integer:
            guard !selfClosing else { throw failure(.invalidValue, "Found empty <integer>", at: offset) }
            let contentStart = position
            let text = try scanText(closing: .integer, openedAt: offset)
            switch withText(text, { count, byte in NumberText.parseInteger(count: count, byte: byte) }) {
            case .value(let integer):
                return .integer(integer)
            case .syntax:
                throw failure(.invalidValue, "Found invalid integer \"\(snippet(text))\"", at: contentStart)
            case .outOfRange:
                throw failure(
                    .invalidValue,
                    "Found integer \(snippet(text)) out of range (−2^63 … 2^64−1)", at: contentStart)
            }
        case .real:
            guard !selfClosing else { throw failure(.invalidValue, "Found empty <real>", at: offset) }
            let contentStart = position
            let text = try scanText(closing: .real, openedAt: offset)
            guard let string = try? string(text, at: contentStart), let value = NumberText.parseReal(string) else {
                throw failure(.invalidValue, "Found invalid real \"\(snippet(text))\"", at: contentStart)
            }
            return .real(value)
        case .date:
            guard !selfClosing else { throw failure(.invalidValue, "Found empty <date>", at: offset) }
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
                    .invalidValue, "Found invalid date \"\(snippet(text))\" (expected YYYY-MM-DDTHH:MM:SSZ)",
                    at: contentStart)
            }
            return .date(seconds)
        case .plist, .dict, .array, .key:
            // Containers and keys are handled by the caller; reaching here is a programming error.
            preconditionFailure("scanScalar called for <\(tag.name)>")
        }
    }
}
