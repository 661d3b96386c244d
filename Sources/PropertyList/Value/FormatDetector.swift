/// Tells a property list's format from its first bytes.
enum FormatDetector {
    static func detect(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListFormat {
        if bytes.starts(with: BinaryFormat.magicPrefix) { return .binary }
        // UTF-16 and UTF-32 text: detect from its first characters (the readers transcode the whole text).
        if let preview = TextEncoding.asciiPreview(of: bytes) { return try detectText(preview) }
        return try detectText(bytes)
    }

    /// The format of text (with an optional UTF-8 byte order mark) from its first non-blank character.
    private static func detectText(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListFormat {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A
                || bytes[index] == 0x0D
        {
            index += 1
        }
        guard index < bytes.count else {
            throw PropertyListError(.emptyInput, at: .byteOffset(index))
        }
        switch bytes[index] {
        case UInt8(ascii: "<"):
            // `<0fab 12>` (hex digits up to `>`) is OpenStep data; any tag (`<?xml`, `<plist`, `<dict>`) is XML.
            var cursor = index + 1
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: ">") {
                let byte = bytes[cursor] | 0x20  // ASCII lower case
                let isHexOrBlank =
                    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || bytes[cursor] <= 0x20
                if !isHexOrBlank { return .xml }
                cursor += 1
            }
            return .openStep
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
            return .json
        default:
            return .openStep
        }
    }
}
