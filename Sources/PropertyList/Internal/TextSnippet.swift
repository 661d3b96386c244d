/// How messages quote what the input held: short, printable, hexadecimal.
enum TextSnippet {
    /// The first 40 characters of `text`, with `…` when there is more.
    static func of(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(40)) + "…"
    }

    /// At least four upper-case hex digits: `00E9`, `1F600`.
    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A byte as a character when it is printable ASCII, else as `\u{xx}`.
    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{" + String(byte, radix: 16) + "}"
    }
}
