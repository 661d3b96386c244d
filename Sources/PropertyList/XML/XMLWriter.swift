/// Writes XML property lists byte for byte as Apple's CoreFoundation does: the XML declaration and
/// PropertyList-1.0 DOCTYPE, one element per line indented with tabs, keys sorted by ``KeyOrder``,
/// `<array/>` and `<dict/>` for empty containers, only `&`, `<` and `>` escaped, `<data>` as base64 lines of
/// 76 − 8·indent characters (indent capped at 8), `<date>` in whole UTC seconds (the fraction is dropped:
/// see ``PropertyList/firstSubsecondDatePath``), integers in decimal.
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

    static func write(_ value: PropertyList) throws(PropertyListError) -> [UInt8] {
        var emitter = XMLEmitter()
        emitter.out.reserveCapacity(4096)
        emitter.out.append(contentsOf: header)
        do {
            try emitter.emit(value, indent: 0)
        } catch {
            throw error.propertyListError
        }
        emitter.out.append(contentsOf: footer)
        return emitter.out
    }
}

/// The value walk behind ``XMLWriter``.
struct XMLEmitter {
    var out: [UInt8] = []
    private var nodes = 0

    private static let tab: UInt8 = 0x09
    private static let newline: UInt8 = 0x0A

    @inline(__always)
    private mutating func indent(_ count: Int) {
        for _ in 0..<count { out.append(Self.tab) }
    }

    @inline(__always)
    private mutating func append(_ text: String) {
        out.append(contentsOf: text.utf8)
    }

    /// Writes `value` as one element (and its children) at `indent` tabs; `indent` is also the depth of a
    /// container written here minus one.
    mutating func emit(_ value: PropertyList, indent level: Int) throws(WriteFailure) {
        nodes += 1
        guard nodes <= WriteLimits.maxNodes else { throw WriteLimits.nodeFailure() }
        indent(level)
        switch value {
        case .string(let string):
            append("<string>")
            try appendEscaped(string)
            append("</string>\n")
        case .integer(let integer):
            append("<integer>")
            out.append(contentsOf: integer.description.utf8)
            append("</integer>\n")
        case .real(let real):
            append("<real>")
            appendReal(real)
            append("</real>\n")
        case .boolean(let flag):
            if flag { append("<true/>\n") } else { append("<false/>\n") }
        case .date(let seconds):
            append("<date>")
            guard CalendarDate.appendISO8601(seconds, to: &out) else {
                throw WriteFailure(
                    .unrepresentable,
                    seconds.isFinite
                        ? "A date outside years -9999…9999 cannot be written as XML"
                        : "A date that is not finite cannot be written as XML")
            }
            append("</date>\n")
        case .data(let bytes):
            append("<data>\n")
            appendBase64Lines(bytes, indent: level)
            indent(level)
            append("</data>\n")
        case .array(let elements):
            guard level < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            if elements.isEmpty {
                append("<array/>\n")
                return
            }
            append("<array>\n")
            for (index, element) in elements.enumerated() {
                do {
                    try emit(element, indent: level + 1)
                } catch {
                    throw error.under(.index(index))
                }
            }
            indent(level)
            append("</array>\n")
        case .dictionary(let entries):
            guard level < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            if entries.isEmpty {
                append("<dict/>\n")
                return
            }
            append("<dict>\n")
            for (key, element) in KeyOrder.sortedEntries(entries) {
                do {
                    indent(level + 1)
                    append("<key>")
                    try appendEscaped(key)
                    append("</key>\n")
                    try emit(element, indent: level + 1)
                } catch {
                    throw error.under(.key(key))
                }
            }
            indent(level)
            append("</dict>\n")
        }
    }

    /// Appends `string` with `&`, `<`, `>` escaped and a carriage return as `&#13;` (a raw one would be read back
    /// as a line feed by every conforming XML reader), after checking that XML 1.0 can hold every character.
    private mutating func appendEscaped(_ string: String) throws(WriteFailure) {
        switch UTF8Bytes.scanXMLText(string) {
        case .plain:
            out.append(contentsOf: string.utf8)
        case .needsEscaping:
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "&"): append("&amp;")
                case UInt8(ascii: "<"): append("&lt;")
                case UInt8(ascii: ">"): append("&gt;")
                case 0x0D: append("&#13;")
                default: out.append(byte)
                }
            }
        case .forbidden(let scalar):
            throw WriteFailure(
                .unrepresentable, "A string holds U+\(XMLScanner.hex4(scalar)), which XML 1.0 cannot hold")
        }
    }

    private mutating func appendReal(_ real: Double) {
        if real.isNaN {
            append("nan")
        } else if real.isInfinite {
            if real < 0 { append("-infinity") } else { append("+infinity") }
        } else {
            out.append(contentsOf: real.description.utf8)
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
            indent(capped)
            Base64.encode(bytes, start..<end, into: &out)
            out.append(Self.newline)
            start = end
        }
    }
}
