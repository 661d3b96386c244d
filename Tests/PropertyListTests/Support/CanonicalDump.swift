@testable import PropertyList

/// Renders a value in the canonical text of Scripts/canonical-dump.py, so that our decoding can be compared
/// with CPython's `plistlib` verdict frozen in Fixtures/expected.
enum CanonicalDump {
    static func render(_ value: PropertyList) -> String {
        var out = ""
        render(value, into: &out)
        return out
    }

    private static func render(_ value: PropertyList, into out: inout String) {
        switch value {
        case .boolean(let flag): out += flag ? "T" : "F"
        case .integer(let integer): out += "i\(integer)"
        case .real(let real): out += "r" + hex64(real.bitPattern)
        case .date(let seconds): out += "d" + hex64(seconds.bitPattern)
        case .string(let string): out += "s" + jsonQuoted(string)
        case .data(let bytes): out += "x" + bytes.map { hexByte($0) }.joined()
        // The script's form for plistlib.UID, which is also how CF's XML spells a UID (and plistlib reads an XML
        // `CF$UID` dictionary as a plain dictionary): the UID tests tell the two apart, not this dump.
        case .uid(let uid): out += "{\"CF$UID\":i\(uid)}"
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                render(element, into: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            // Python sorts by code point, which is the order of the UTF-8 bytes.
            let keys = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out += "," }
                out += jsonQuoted(key) + ":"
                if let element = entries[key] { render(element, into: &out) }
            }
            out += "}"
        }
    }

    /// JSON with `ensure_ascii=True`, as Python's `json.dumps` writes it.
    private static func jsonQuoted(_ string: String) -> String {
        var out = "\""
        for unit in string.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: out += "\\u" + hex16(unit)
            }
        }
        return out + "\""
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    private static func hex16(_ value: UInt16) -> String {
        hexByte(UInt8(value >> 8)) + hexByte(UInt8(value & 0xFF))
    }

    private static func hex64(_ value: UInt64) -> String {
        (0..<8).reversed().map { hexByte(UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8))) }.joined()
    }
}
