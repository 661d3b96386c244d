/// The byte-level XML property-list parser behind ``XMLReader``.
///
/// It walks the input once with an explicit stack (no recursion, so nesting costs heap, not stack), decodes
/// text only inside scalar elements, and takes a fast path for text without entities, CDATA or comments.
struct XMLScanner: TextScanner {
    /// The element names of the plist vocabulary.
    enum Tag: Equatable {
        case plist, dict, array, key, string, data, date, integer, real, `true`, `false`

        /// `</name>`, as every writer closes the element.
        var closingTag: StaticString {
            switch self {
            case .plist: "</plist>"
            case .dict: "</dict>"
            case .array: "</array>"
            case .key: "</key>"
            case .string: "</string>"
            case .data: "</data>"
            case .date: "</date>"
            case .integer: "</integer>"
            case .real: "</real>"
            case .true: "</true>"
            case .false: "</false>"
            }
        }

        /// The first 8 bytes of `</name>` as a little-endian integer (the first byte lowest), the mask of the bytes
        /// that belong to it, and its length: most closing tags are checked in one comparison.
        var closingPrefix: (word: UInt64, mask: UInt64, length: Int) {
            switch self {
            case .key: (0x3E_7965_6B2F_3C, 0xFFFF_FFFF_FFFF, 6)
            case .real: (0x3E_6C61_6572_2F3C, 0xFF_FFFF_FFFF_FFFF, 7)
            case .dict: (0x3E_7463_6964_2F3C, 0xFF_FFFF_FFFF_FFFF, 7)
            case .data: (0x3E_6174_6164_2F3C, 0xFF_FFFF_FFFF_FFFF, 7)
            case .date: (0x3E_6574_6164_2F3C, 0xFF_FFFF_FFFF_FFFF, 7)
            case .true: (0x3E_6575_7274_2F3C, 0xFF_FFFF_FFFF_FFFF, 7)
            case .false: (0x3E65_736C_6166_2F3C, ~0, 8)
            case .array: (0x3E79_6172_7261_2F3C, ~0, 8)
            case .plist: (0x3E74_7369_6C70_2F3C, ~0, 8)
            case .string: (0x676E_6972_7473_2F3C, ~0, 9)
            case .integer: (0x6567_6574_6E69_2F3C, ~0, 10)
            }
        }

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
        case region(start: Int, count: Int, isASCII: Bool)
        case gathered
    }

    /// An open element (`<plist>`, `<array>`, `<dict>`): its tag and the offset of its start tag.
    struct Element {
        let tag: Tag
        let offset: Int
    }

    let reader: ByteReader
    var builder: ValueBuilder
    var position = 0
    var scratch: [UInt8] = []
    /// The elements open around `position`, outermost first.
    var elements: [Element] = []
    /// The value inside `<plist>`, once read.
    var plistValue: PropertyList?

    init(reader: ByteReader, limits: DecodingLimits) {
        self.reader = reader
        builder = ValueBuilder(reader: reader, limits: limits)
    }

    // MARK: - Errors

    func describe(offset: Int) -> String {
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
                throw failure(.syntax("Found no root element"), at: position)
            }
            guard reader[position] == UInt8(ascii: "<") else {
                throw failure(.syntax("Found text before the root element"), at: position)
            }
            if reader.matches(Self.piOpen, at: position) {
                try skipProcessingInstruction(atDocumentStart: !sawMarkup)
            } else if reader.matches(Self.commentOpen, at: position) {
                try skipComment()
            } else if reader.matches(Self.doctypeOpen, at: position) {
                guard !sawDoctype else { throw failure(.syntax("Found a second DOCTYPE"), at: position) }
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
                throw failure(.syntax("Found content after the root element"), at: position)
            }
        }
        return value
    }

    /// Parses the root element (a `<plist>` wrapper or a bare value) and everything inside it.
    mutating func scanRoot() throws(PropertyListError) -> PropertyList {
        while true {
            if let element = elements.last {
                try skipBetweenElements(inside: element.tag)
                guard position < reader.count else {
                    throw failure(
                        .unclosedElement(element.tag.name, openedAt: describe(offset: element.offset)), at: position)
                }
            }
            // `position` is at a `<` (skipBetweenElements stops only there; the root loop left it there).
            let finished: PropertyList?
            if position + 1 < reader.count, reader[position + 1] == UInt8(ascii: "/") {
                guard let element = elements.popLast() else {
                    throw failure(.syntax("Found a closing tag where the root element was expected"), at: position)
                }
                if element.tag == .plist { return try closePlist() }
                finished = try closeContainer(element.tag)
            } else {
                guard let value = try scanElement() else { continue }
                finished = value
            }
            // A finished root goes into `<plist>` when there is one, else it is the document's value.
            if let finished {
                guard elements.last?.tag == .plist else { return finished }
                plistValue = finished
            }
        }
    }

    /// `</plist>` at `position`: the document's value, complete.
    mutating func closePlist() throws(PropertyListError) -> PropertyList {
        let endOffset = position
        try scanEndTag(expecting: .plist)
        guard let plistValue else { throw failure(.syntax("Found no value inside <plist>"), at: endOffset) }
        return plistValue
    }

    /// `</array>` or `</dict>` at `position`; the container, when it is the root.
    mutating func closeContainer(_ tag: Tag) throws(PropertyListError) -> PropertyList? {
        let endOffset = position
        try scanEndTag(expecting: tag)
        guard tag == .dict else { return builder.endArray() }
        if let key = builder.pendingKey { throw failure(.missingValue(key), at: endOffset) }
        return builder.endDictionary(readingUIDs: true)
    }

    /// A start tag at `position` and, for a scalar, its content: a key goes to the open dictionary, a
    /// container is opened (or, self-closing, finished), a scalar is finished. Returns `nil` when nothing was
    /// finished, or the finished value wrapped (itself `nil` unless it is the root).
    mutating func scanElement() throws(PropertyListError) -> PropertyList?? {
        let (tag, selfClosing, offset) = try scanStartTag()
        let parent = elements.last?.tag
        if builder.expectsKey {
            guard tag == .key else { throw failure(.syntax("Found non-key inside <dict>"), at: offset) }
            if selfClosing {
                builder.key("")
            } else {
                try scanKey(openedAt: offset)
            }
            return nil
        }
        switch tag {
        case .key:
            if let key = builder.pendingKey { throw failure(.missingValue(key), at: offset) }
            throw failure(.syntax("Found <key> \(Self.context(parent))"), at: offset)
        case .plist:
            guard elements.isEmpty else { throw failure(.syntax("Found <plist> \(Self.context(parent))"), at: offset) }
            guard !selfClosing else { throw failure(.syntax("Found no value inside <plist>"), at: offset) }
            elements.append(Element(tag: .plist, offset: offset))
            return nil
        default:
            break
        }
        if parent == .plist, plistValue != nil {
            throw failure(.syntax("Found more than one value inside <plist>"), at: offset)
        }
        switch tag {
        case .array, .dict:
            if tag == .array { try builder.beginArray(at: offset) } else { try builder.beginDictionary(at: offset) }
            guard selfClosing else {
                elements.append(Element(tag: tag, offset: offset))
                return nil
            }
            return .some(tag == .array ? builder.endArray() : builder.endDictionary())
        default:
            let value = try scanScalar(tag, selfClosing: selfClosing, openedAt: offset)
            return .some(try builder.scalar(value, at: offset))
        }
    }

    static func context(_ tag: Tag?) -> String {
        guard let tag else { return "outside <dict>" }
        return "inside <\(tag.name)>"
    }
}
