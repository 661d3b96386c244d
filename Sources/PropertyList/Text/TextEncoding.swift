/// The text-encoding pre-pass of the XML and OpenStep readers: it finds the encoding of the input as
/// CoreFoundation does and hands the scanners UTF-8.
///
/// Detection (CF's `encodingForXMLData`, for both formats):
/// 1. a byte order mark: UTF-32 (`00 00 FE FF`, `FF FE 00 00`), UTF-8 (`EF BB BF`), UTF-16 (`FE FF`, `FF FE`).
///    The mark decides; an XML declaration after it is not consulted, as in CF;
/// 2. for XML without a mark, the `encoding` of an XML declaration that starts at the first byte
///    (`<?xml version="1.0" encoding="ISO-8859-1"?>`); a declaration after blank lines is not consulted, as in CF;
/// 3. otherwise UTF-8.
///
/// Names read in a declaration, in any letter case: UTF-8 (`UTF-8`, `UTF8`), ISO-8859-1 (`ISO-8859-1`, `latin1`,
/// …), US-ASCII (`US-ASCII`, `ASCII`, …), windows-1252 (`windows-1252`, `cp1252`, …) and Mac OS Roman
/// (`macintosh`, `MacRoman`, `x-mac-roman`, …). A US-ASCII file's bytes 0x80…0xFF are read as ISO-8859-1, as
/// CF reads them. Any other name is ``PropertyListError/Code/unsupported``, naming it. Two differences from CF,
/// both for files CF refuses: CF cannot read `macintosh` (its converter returns encoding 0, which its caller takes
/// for "no encoding"), and it reads many more 8-bit and CJK encodings through ICU.
///
/// Strict where CF is lax: an unpaired UTF-16 surrogate, a UTF-32 value that is not a Unicode scalar, a byte that
/// windows-1252 leaves undefined, or text that ends inside a code unit is ``PropertyListError/Code/invalidValue``
/// with the line and column (in UTF-8 bytes of the text decoded so far). UTF-16 without a byte order mark is
/// refused as ``PropertyListError/Code/unsupported``: CF recognises it but skips its first character, so it
/// never reads such a file either.
///
/// The work is one pass and bounded: UTF-8 out is at most 1.5 × the UTF-16 input, 1 × the UTF-32 input and
/// 3 × the 8-bit input.
enum TextEncoding: Sendable, Equatable {
    case utf8
    case utf16BigEndian, utf16LittleEndian
    case utf32BigEndian, utf32LittleEndian
    /// ISO-8859-1, and US-ASCII as CF reads it.
    case latin1
    case windows1252
    case macRoman

    /// The text of `bytes` as UTF-8, or `nil` when `bytes` already are UTF-8 (with or without a UTF-8 byte
    /// order mark, which the scanners skip). `xmlDeclaration`: whether an XML declaration may name the encoding.
    static func utf8Text(of bytes: [UInt8], xmlDeclaration: Bool) throws(PropertyListError) -> [UInt8]? {
        let (encoding, markLength) = try detect(bytes, xmlDeclaration: xmlDeclaration)
        guard encoding != .utf8 else { return nil }
        return try transcode(bytes, from: markLength, as: encoding)
    }

    /// The first characters of `bytes` as ASCII bytes (any other character as 0x80), when `bytes` start with a
    /// UTF-16 or UTF-32 byte order mark; `nil` otherwise. Lets format detection look past the mark.
    static func asciiPreview(of bytes: [UInt8], characters: Int = 256) -> [UInt8]? {
        guard let (encoding, markLength) = byteOrderMark(of: bytes) else { return nil }
        let width = encoding.unitWidth
        guard width > 1 else { return nil }
        var preview: [UInt8] = []
        var offset = markLength
        while preview.count < characters, offset + width <= bytes.count {
            let unit = encoding.unit(in: bytes, at: offset)
            preview.append(unit < 0x80 ? UInt8(unit) : 0x80)
            offset += width
        }
        return preview
    }

    // MARK: - Detection

    /// The encoding of `bytes` and the length of the byte order mark to skip.
    static func detect(_ bytes: [UInt8], xmlDeclaration: Bool) throws(PropertyListError) -> (TextEncoding, Int) {
        if let mark = byteOrderMark(of: bytes) { return mark }
        if bytes.count >= 2, (bytes[0] == 0) != (bytes[1] == 0), bytes[0] | bytes[1] < 0x80 {
            throw PropertyListError(
                .unsupportedEncoding(
                    "The text looks like UTF-16 without a byte order mark; only UTF-16 that starts with one is read"),
                at: .line(1, column: 1))
        }
        guard xmlDeclaration, let name = declaredEncoding(in: bytes) else { return (.utf8, 0) }
        guard let encoding = named(name.text) else {
            throw PropertyListError(
                .unsupportedEncoding(
                    "Found unsupported encoding \"\(TextSnippet.of(name.text))\" (read: UTF-8, UTF-16, UTF-32, "
                        + "ISO-8859-1, US-ASCII, windows-1252, macintosh)"),
                at: .line(1, column: name.offset + 1))
        }
        if encoding.unitWidth > 1 {
            throw PropertyListError(
                .syntax(
                    "The XML declaration names \(name.text), but the text has no byte order mark and reads as 8-bit text"
                ),
                at: .line(1, column: name.offset + 1))
        }
        return (encoding, 0)
    }

    /// The encoding a byte order mark at the start of `bytes` names, and the mark's length.
    private static func byteOrderMark(of bytes: [UInt8]) -> (TextEncoding, Int)? {
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 0) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        return nil
    }

    /// The value of the `encoding` pseudo-attribute of an XML declaration at the very start of `bytes`, and its
    /// byte offset. Only the declaration is read (up to its `?>`), whatever the size of the input.
    private static func declaredEncoding(in bytes: [UInt8]) -> (text: String, offset: Int)? {
        guard bytes.starts(with: Array("<?xml".utf8)), bytes.count > 5, isBlank(bytes[5]) else { return nil }
        var end = 5
        while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) {
            guard bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: ">") else { return nil }
            end += 1
        }
        let word = Array("encoding".utf8)
        var index = 5
        while index + word.count <= end {
            if isBlank(bytes[index - 1]), bytes[index..<(index + word.count)].elementsEqual(word) { break }
            index += 1
        }
        index += word.count
        while index < end, isBlank(bytes[index]) { index += 1 }
        guard index < end, bytes[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        while index < end, isBlank(bytes[index]) { index += 1 }
        guard index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[index]
        let start = index + 1
        var close = start
        while close < end, bytes[close] != quote { close += 1 }
        guard close < end else { return nil }
        return (String(decoding: bytes[start..<close], as: UTF8.self), start)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The encoding an XML declaration's name stands for (IANA names and the aliases CF knows), or `nil`. Every
    /// UTF-16 or UTF-32 name gives the big-endian case: without a byte order mark such a declaration is refused,
    /// whatever the byte order it names.
    static func named(_ name: String) -> TextEncoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": .utf8
        case "utf-16", "utf-16be", "utf-16le", "ucs-2", "iso-10646-ucs-2", "unicode": .utf16BigEndian
        case "utf-32", "utf-32be", "utf-32le", "ucs-4", "iso-10646-ucs-4": .utf32BigEndian
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "latin-1", "l1", "iso-ir-100",
            "cp819", "ibm819", "csisolatin1":
            .latin1
        case "us-ascii", "ascii", "us", "iso646-us", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso-ir-6", "cp367",
            "ibm367", "csascii":
            .latin1
        case "windows-1252", "cp1252", "x-cp1252", "cswindows1252": .windows1252
        case "macintosh", "mac", "macroman", "x-mac-roman", "csmacintosh": .macRoman
        default: nil
        }
    }

    // MARK: - Transcoding

    /// Bytes per code unit.
    private var unitWidth: Int {
        switch self {
        case .utf8, .latin1, .windows1252, .macRoman: 1
        case .utf16BigEndian, .utf16LittleEndian: 2
        case .utf32BigEndian, .utf32LittleEndian: 4
        }
    }

    /// The code unit at `offset` (which has `unitWidth` bytes in range).
    @inline(__always)
    private func unit(in bytes: [UInt8], at offset: Int) -> UInt32 {
        switch self {
        case .utf16BigEndian: UInt32(bytes[offset]) << 8 | UInt32(bytes[offset + 1])
        case .utf16LittleEndian: UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
        case .utf32BigEndian:
            UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
        case .utf32LittleEndian:
            UInt32(bytes[offset + 3]) << 24 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8
                | UInt32(bytes[offset])
        case .utf8, .latin1, .windows1252, .macRoman: UInt32(bytes[offset])
        }
    }

    /// `bytes[start...]` in `encoding`, as UTF-8.
    private static func transcode(
        _ bytes: [UInt8], from start: Int, as encoding: TextEncoding
    ) throws(PropertyListError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count - start + (bytes.count - start) / 2)
        let width = encoding.unitWidth
        guard (bytes.count - start) % width == 0 else {
            throw failure(.invalidEncoding("The text ends in the middle of a \(encoding.name) character"), after: out)
        }
        var offset = start
        while offset < bytes.count {
            var scalar = encoding.unit(in: bytes, at: offset)
            offset += width
            switch encoding {
            case .utf16BigEndian, .utf16LittleEndian:
                if (0xD800...0xDFFF).contains(scalar) {
                    guard scalar <= 0xDBFF, offset < bytes.count,
                        case let low = encoding.unit(in: bytes, at: offset), (0xDC00...0xDFFF).contains(low)
                    else {
                        throw failure(
                            .unpairedSurrogate("Found an unpaired UTF-16 surrogate \(TextSnippet.hex4(scalar))"),
                            after: out)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    offset += width
                }
            case .utf32BigEndian, .utf32LittleEndian:
                guard scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
                    throw failure(
                        .invalidEncoding(
                            "Found \(String(scalar, radix: 16, uppercase: true)), which is not a Unicode scalar"),
                        after: out)
                }
            case .macRoman:
                if scalar >= 0x80 { scalar = UInt32(CharacterTables.macRoman[Int(scalar - 0x80)]) }
            case .windows1252:
                if (0x80...0x9F).contains(scalar) {
                    let mapped = UInt32(CharacterTables.windows1252[Int(scalar - 0x80)])
                    guard mapped != 0 else {
                        throw failure(
                            .invalidEncoding(
                                "Found byte 0x\(String(scalar, radix: 16, uppercase: true)), which windows-1252 does "
                                    + "not define"),
                            after: out)
                    }
                    scalar = mapped
                }
            case .utf8, .latin1:
                break
            }
            appendUTF8(scalar, to: &out)
        }
        return out
    }

    /// A name for messages.
    private var name: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16BigEndian, .utf16LittleEndian: "UTF-16"
        case .utf32BigEndian, .utf32LittleEndian: "UTF-32"
        case .latin1: "ISO-8859-1"
        case .windows1252: "windows-1252"
        case .macRoman: "macintosh"
        }
    }

    /// An error at the end of the text decoded so far.
    private static func failure(_ failure: CodecFailure, after decoded: [UInt8]) -> PropertyListError {
        let location = try? withByteReader(decoded) { reader in TextLocation.location(of: reader.count, in: reader) }
        return PropertyListError(failure, at: location)
    }

    /// Appends the UTF-8 of `scalar` (a Unicode scalar value: the callers have excluded surrogates).
    @inline(__always)
    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
