extension PropertyList {
    /// One step of a path into a value: a dictionary key or an array index.
    public enum PathComponent: Sendable, Hashable {
        /// The value under a dictionary key.
        case key(String)
        /// The element at an array index.
        case index(Int)
    }

    /// A path as text, the one way every error of this package prints one: `objects[2].photo`, the empty string
    /// for the root. A key that is not a plain name (a letter, `_` or `$`, then letters, digits, `_`, `$` or `-`)
    /// is quoted, with `"`, `\` and control characters escaped: `objects[2]["file name"]`, `["9lives"]`.
    public static func pathText(_ components: some Sequence<PathComponent>) -> String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where isPlainName(key):
                text += text.isEmpty ? key : "." + key
            case .key(let key):
                text += "[" + quoted(key) + "]"
            }
        }
        return text
    }

    private static func isPlainName(_ key: String) -> Bool {
        guard let first = key.utf8.first, isLetter(first) || first == UInt8(ascii: "_") || first == UInt8(ascii: "$")
        else { return false }
        return key.utf8.allSatisfy { byte in
            isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "-")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
    }

    /// `key` in double quotes, with `"`, `\` and control characters escaped (`\n`, `\u{1b}`): how paths and
    /// `hangar print` show a key that is not a plain name. With `escapingNonASCII`, every scalar above ASCII is
    /// written `\u{HEX}` too, so two canonically equivalent keys never print alike.
    package static func quoted(_ key: String, escapingNonASCII: Bool = false) -> String {
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (escapingNonASCII && scalar.value > 0x7F):
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
