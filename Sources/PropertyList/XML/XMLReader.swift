/// Reads XML property lists, strictly.
///
/// Accepted: an optional UTF-8 BOM, an XML declaration (UTF-8 or US-ASCII), comments, processing
/// instructions, one DOCTYPE without an internal subset, an optional `<plist>` wrapper, and the plist
/// elements (`dict key array string data date integer real true false`, empty forms included). Refused,
/// with the line and column: internal DTD subsets (so no entity can be declared, and no external entity
/// ever fetched), unknown entities and tags, text between elements, mismatched or unclosed tags, control
/// characters, invalid scalars, nesting deeper than ``DecodingLimits/maxDepth``.
///
/// Line endings inside text are kept as they are (`\r\n` is not folded to `\n`), as Apple's reader does,
/// so that a string with a carriage return survives a round trip through ``XMLWriter``.
enum XMLReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        try withByteReader(bytes) { reader throws(PropertyListError) in
            var scanner = XMLScanner(reader: reader, limits: limits)
            return try scanner.scanDocument()
        }
    }
}
