/// Reads XML property lists: strict about structure, lenient about text and encodings where Apple's
/// CoreFoundation is.
///
/// Accepted: the encodings ``TextEncoding`` reads (UTF-8, UTF-16 and UTF-32 with a byte order mark, and the
/// 8-bit encodings an XML declaration may name), blank lines before the XML declaration, comments, processing
/// instructions, one DOCTYPE without an internal subset (skipped as CF skips it), an optional `<plist>` wrapper
/// whose attributes are skipped unread (as CF skips them), and the plist elements
/// (`dict key array string data date integer real true false`, empty forms included). Inside text, raw
/// control characters are kept, as CF keeps them. Dates may have a negative year (`-0044-03-15T12:00:00Z`,
/// proleptic Gregorian with a year 0, as ISO 8601 counts). Refused, with the line and column: internal DTD
/// subsets (so no entity can be declared, and no external entity ever fetched), unknown entities and tags,
/// text between elements, mismatched or unclosed tags, invalid scalars, nesting deeper than
/// ``DecodingLimits/maxDepth``.
///
/// Line endings inside text are kept as they are (`\r\n` is not folded to `\n`), as Apple's reader does;
/// ``XMLWriter`` writes a carriage return as `&#13;`, so that it survives in any conforming reader too.
enum XMLReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        let text = try TextEncoding.utf8Text(of: bytes, xmlDeclaration: true) ?? bytes
        return try withByteReader(text) { reader throws(PropertyListError) in
            var scanner = XMLScanner(reader: reader, limits: limits)
            return try scanner.scanDocument()
        }
    }
}
