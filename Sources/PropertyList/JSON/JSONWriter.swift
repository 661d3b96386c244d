/// Writes JSON as `plutil -convert json` does: compact, keys sorted by ``KeyOrder``, and a date or data value
/// anywhere is ``PropertyListError/Code/unrepresentable`` with its path (`objects[2].photo`), unless
/// ``JSONEncodingOptions/lossyDatesAndData`` maps dates to ISO-8601 strings (`2004-10-26T10:33:33Z`, with up to
/// six fraction digits when the fraction is non-zero) and data to base64 strings.
///
/// - Reals always read back as reals (`1.0`, `1e+16`: Swift's shortest round-tripping form); NaN and
///   infinities are always an error. Integers are exact over −2^63 … 2^64−1.
/// - Strings escape `"`, `\` and the C0 controls (`\b \f \n \r \t`, others `\u00XX`); `/` is not escaped
///   (Foundation's `JSONSerialization` writes `\/`; both read the same).
/// - Pretty mode is `JSONSerialization`'s `.prettyPrinted` style, which `plutil -r` uses: two spaces per
///   level, `"key" : value`, empty containers as `[]` and `{}`.
/// - Neither mode ends with a newline.
enum JSONWriter {
    static func write(_ value: PropertyList, options: JSONEncodingOptions) throws(PropertyListError) -> [UInt8] {
        var emitter = JSONEmitter(options: options)
        do {
            try emitter.emit(value, level: 0)
        } catch {
            throw error.propertyListError
        }
        return emitter.out
    }
}

/// The value walk behind ``JSONWriter``.
struct JSONEmitter {
    var out: [UInt8] = []
    let options: JSONEncodingOptions
    private var nodes = 0

    init(options: JSONEncodingOptions) {
        self.options = options
        out.reserveCapacity(1024)
    }

    @inline(__always)
    private mutating func append(_ text: String) {
        out.append(contentsOf: text.utf8)
    }

    @inline(__always)
    private mutating func newline(indent level: Int) {
        out.append(0x0A)
        for _ in 0..<(2 * level) { out.append(0x20) }
    }

    mutating func emit(_ value: PropertyList, level: Int) throws(WriteFailure) {
        nodes += 1
        guard nodes <= WriteLimits.maxNodes else { throw WriteLimits.nodeFailure() }
        switch value {
        case .string(let string):
            appendString(string)
        case .integer(let integer):
            out.append(contentsOf: integer.description.utf8)
        case .real(let real):
            guard real.isFinite else {
                throw WriteFailure(.unrepresentable, "A real that is not finite (\(real)) cannot be written as JSON")
            }
            out.append(contentsOf: real.description.utf8)
        case .boolean(let flag):
            if flag { append("true") } else { append("false") }
        case .date(let seconds):
            guard options.lossyDatesAndData else {
                throw WriteFailure(
                    .unrepresentable, "A date cannot be written as JSON (lossyDatesAndData writes it as a string)")
            }
            guard let text = CalendarDate.formatISO8601(seconds, fractionDigits: 6) else {
                throw WriteFailure(
                    .unrepresentable,
                    seconds.isFinite
                        ? "A date outside years -9999…9999 cannot be written as JSON"
                        : "A date that is not finite cannot be written as JSON")
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text)
            out.append(UInt8(ascii: "\""))
        case .data(let bytes):
            guard options.lossyDatesAndData else {
                throw WriteFailure(
                    .unrepresentable, "Data cannot be written as JSON (lossyDatesAndData writes it as base64)")
            }
            out.append(UInt8(ascii: "\""))
            Base64.encode(bytes, 0..<bytes.count, into: &out)
            out.append(UInt8(ascii: "\""))
        case .array(let elements):
            guard level < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if options.prettyPrinted { newline(indent: level + 1) }
                do {
                    try emit(element, level: level + 1)
                } catch {
                    throw error.under(.index(index))
                }
            }
            if options.prettyPrinted, !elements.isEmpty { newline(indent: level) }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let entries):
            guard level < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            out.append(UInt8(ascii: "{"))
            for (index, (key, element)) in KeyOrder.sortedEntries(entries).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if options.prettyPrinted { newline(indent: level + 1) }
                appendString(key)
                if options.prettyPrinted { append(" : ") } else { out.append(UInt8(ascii: ":")) }
                do {
                    try emit(element, level: level + 1)
                } catch {
                    throw error.under(.key(key))
                }
            }
            if options.prettyPrinted, !entries.isEmpty { newline(indent: level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ string: String) {
        out.append(UInt8(ascii: "\""))
        var clean = true
        for byte in string.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            clean = false
            break
        }
        if clean {
            out.append(contentsOf: string.utf8)
        } else {
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case ..<0x20:
                    append("\\u00")
                    out.append(Self.hexDigits[Int(byte >> 4)])
                    out.append(Self.hexDigits[Int(byte & 0xF)])
                default:
                    out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
