/// Writes XML property lists byte for byte as Apple's CoreFoundation does: the XML declaration and
/// PropertyList-1.0 DOCTYPE, one element per line indented with tabs, keys sorted by ``KeyOrder`` (or kept in the value's order),
/// `<array/>` and `<dict/>` for empty containers, only `&`, `<` and `>` escaped, `<data>` as base64 lines of
/// 76 − 8·indent characters (indent capped at 8), `<date>` in whole UTC seconds (the fraction is dropped:
/// see ``PropertyList/firstSubsecondDatePath``), integers in decimal.
///
/// A UID is written as CF writes it: `<dict>`, then `<key>CF$UID</key>` and `<integer>n</integer>` one level
/// deeper, then `</dict>`, each on its own line; the XML reader reads that dictionary back as the UID.
///
/// Two deliberate differences: reals are written in Swift's shortest round-tripping form (`0.1`, `1.0`,
/// `1e-05`) rather than CF's `%.17g` (`0.10000000000000001`, `1`); both read back to the same bits.
/// Specials are `nan`, `+infinity`, `-infinity`, as CF writes them. And a carriage return in text is written
/// `&#13;` where CF writes it raw: CF reads a raw one back as it is, but XML 1.0 readers (`plistlib`, libxml2,
/// expat) turn it into a line feed, and the character reference keeps it for them too.
///
/// Refused with ``PropertyListError/Code/unrepresentable`` and the value's path: strings with characters
/// XML 1.0 cannot hold (C0 controls other than tab, LF and CR; U+FFFE; U+FFFF), dates that are not finite
/// or fall outside years -9999…9999. Nesting past 512 levels is ``PropertyListError/Code/limitExceeded``.
enum XMLWriter {
    static let header: [UInt8] = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    static let footer: [UInt8] = Array("</plist>\n".utf8)

    static func write(_ value: PropertyList, keyOrder: EncodingOptions.KeyOrder) throws(PropertyListError) -> [UInt8] {
        var estimate = XMLSizeEstimate()
        try ValueWalk.walk(value, keyOrder: keyOrder, with: &estimate)
        // Written once into an array of the estimated size: growing a large output by doubling would copy it
        // and fault in fresh pages every time.
        return try OutputBuffer.collect(estimate: header.count + estimate.bytes + footer.count) {
            (out) throws(PropertyListError) in
            var emitter = XMLEmitter(out: out)
            header.withUnsafeBytes { emitter.out.append(contentsOf: $0) }
            try ValueWalk.walk(value, keyOrder: keyOrder, with: &emitter)
            footer.withUnsafeBytes { emitter.out.append(contentsOf: $0) }
            out = emitter.out
        }
    }
}

/// What ``XMLEmitter`` writes for each step of the walk.
struct XMLEmitter: ValueVisitor {
    var out: OutputBuffer

    private static let tab: UInt8 = 0x09
    private static let newline: UInt8 = 0x0A

    mutating func visitScalar(_ value: PropertyList, depth: Int) throws(WriteFailure) {
        out.append(repeating: Self.tab, count: depth)
        switch value {
        case .string(let string):
            out.append("<string>")
            try appendEscaped(string)
            out.append("</string>\n")
        case .integer(let integer):
            out.append("<integer>")
            out.appendDecimal(integer)
            out.append("</integer>\n")
        case .real(let real):
            out.append("<real>")
            appendReal(real)
            out.append("</real>\n")
        case .boolean(let flag):
            if flag { out.append("<true/>\n") } else { out.append("<false/>\n") }
        case .date(let seconds):
            out.append("<date>")
            guard CalendarDate.appendISO8601(seconds, to: &out) else {
                throw WriteFailure(.unwritableDate(format: "XML", finite: seconds.isFinite))
            }
            out.append("</date>\n")
        case .data(let bytes):
            out.append("<data>\n")
            appendBase64Lines(bytes, indent: depth)
            out.append(repeating: Self.tab, count: depth)
            out.append("</data>\n")
        case .uid(let uid):
            out.append("<dict>\n")
            out.append(repeating: Self.tab, count: depth + 1)
            out.append("<key>CF$UID</key>\n")
            out.append(repeating: Self.tab, count: depth + 1)
            out.append("<integer>")
            out.appendDecimal(PropertyList.Integer(UInt64(uid)))
            out.append("</integer>\n")
            out.append(repeating: Self.tab, count: depth)
            out.append("</dict>\n")
        case .array, .dictionary:
            break  // the walk hands containers to begin/end
        }
    }

    mutating func beginArray(_ elements: [PropertyList], depth: Int) {
        out.append(repeating: Self.tab, count: depth)
        if elements.isEmpty { out.append("<array/>\n") } else { out.append("<array>\n") }
    }

    mutating func endArray(_ elements: [PropertyList], depth: Int) {
        guard !elements.isEmpty else { return }
        out.append(repeating: Self.tab, count: depth)
        out.append("</array>\n")
    }

    mutating func beginDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        out.append(repeating: Self.tab, count: depth)
        if entries.isEmpty { out.append("<dict/>\n") } else { out.append("<dict>\n") }
    }

    mutating func beginEntry(_ key: String, index: Int, depth: Int) throws(WriteFailure) {
        out.append(repeating: Self.tab, count: depth + 1)
        out.append("<key>")
        try appendEscaped(key)
        out.append("</key>\n")
    }

    mutating func endDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        guard !entries.isEmpty else { return }
        out.append(repeating: Self.tab, count: depth)
        out.append("</dict>\n")
    }

    /// Appends `string` with `&`, `<`, `>` escaped and a carriage return as `&#13;` (a raw one would be read back
    /// as a line feed by every conforming XML reader), after checking that XML 1.0 can hold every character.
    private mutating func appendEscaped(_ string: String) throws(WriteFailure) {
        switch UTF8Bytes.scanXMLText(string) {
        case .plain:
            out.appendUTF8(string)
        case .needsEscaping:
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "&"): out.append("&amp;")
                case UInt8(ascii: "<"): out.append("&lt;")
                case UInt8(ascii: ">"): out.append("&gt;")
                case 0x0D: out.append("&#13;")
                default: out.append(byte)
                }
            }
        case .forbidden(let scalar):
            throw WriteFailure(.unwritableCharacter(scalar, format: "XML 1.0"))
        }
    }

    private mutating func appendReal(_ real: Double) {
        if real.isNaN {
            out.append("nan")
        } else if real.isInfinite {
            if real < 0 { out.append("-infinity") } else { out.append("+infinity") }
        } else {
            out.appendUTF8(real.description)
        }
    }

    /// CF's layout: lines of `76 − 8·indent` characters (a multiple of 4, so whole groups), each after
    /// `indent` tabs, with `indent` capped at 8 for both; the last line holds the rest and the padding.
    private mutating func appendBase64Lines(_ bytes: [UInt8], indent level: Int) {
        let capped = min(level, 8)
        let bytesPerLine = (76 - 8 * capped) / 4 * 3
        var start = 0
        while start < bytes.count {
            let end = min(start + bytesPerLine, bytes.count)
            out.append(repeating: Self.tab, count: capped)
            Base64.encode(bytes, start..<end, into: &out)
            out.append(Self.newline)
            start = end
        }
    }
}

/// The size of the XML ``XMLEmitter`` writes, counting strings unescaped (an escape only grows the buffer
/// once more), so the output is allocated once.
struct XMLSizeEstimate: ValueVisitor {
    var bytes = 0

    mutating func visitScalar(_ value: PropertyList, depth: Int) {
        bytes += depth
        switch value {
        case .string(let string): bytes += 18 + string.utf8.count
        case .data(let data):
            let capped = min(depth, 8)
            let bytesPerLine = (76 - 8 * capped) / 4 * 3
            let lines = (data.count + bytesPerLine - 1) / bytesPerLine
            bytes += 15 + depth + Base64.encodedCount(data.count) + lines * (capped + 1)
        case .integer(let integer):
            let magnitude = integer.isNegative ? 0 &- integer.bits : integer.bits
            bytes += 20 + (integer.isNegative ? 1 : 0) + decimalDigitCount(magnitude)
        case .real: bytes += 38  // `<real></real>` and a newline, and at most 24 characters
        case .date: bytes += 35  // `<date></date>` and a newline, and `-YYYY-MM-DDTHH:MM:SSZ`
        case .uid: bytes += 3 * depth + 2 + 60  // the four lines of the CF$UID dictionary, 10 digits at most
        default: bytes += 9  // `<false/>` and a newline
        }
    }

    mutating func beginArray(_ elements: [PropertyList], depth: Int) { bytes += 2 * depth + 17 }
    mutating func endArray(_ elements: [PropertyList], depth: Int) {}
    mutating func beginDictionary(_ entries: PropertyList.Dictionary, depth: Int) { bytes += 2 * depth + 15 }
    mutating func beginEntry(_ key: String, index: Int, depth: Int) { bytes += depth + 13 + key.utf8.count }
    mutating func endDictionary(_ entries: PropertyList.Dictionary, depth: Int) {}
}
