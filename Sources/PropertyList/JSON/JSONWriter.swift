/// Writes JSON as `plutil -convert json` does: compact, keys sorted by ``KeyOrder`` (or kept in the value's order), and a date or data value
/// anywhere is ``PropertyListError/Code/unrepresentable`` with its path (`objects[2].photo`), unless
/// ``JSONEncodingOptions/lossyDatesAndData`` maps dates to ISO-8601 strings (`2004-10-26T10:33:33Z`, with up to
/// six fraction digits when the fraction is non-zero) and data to base64 strings. A UID is refused the same way
/// (as `plutil` and libplist refuse it); the lossy option writes it as `{"CF$UID":n}`, the dictionary XML uses.
///
/// - Reals always read back as reals (`1.0`, `1e+16`: Swift's shortest round-tripping form); NaN and
///   infinities are always an error. Integers are exact over −2^63 … 2^64−1.
/// - Strings escape `"`, `\` and the C0 controls (`\b \f \n \r \t`, others `\u00XX`); `/` is not escaped
///   (Foundation's `JSONSerialization` writes `\/`; both read the same).
/// - Pretty mode is `JSONSerialization`'s `.prettyPrinted` style, which `plutil -r` uses: two spaces per
///   level, `"key" : value`, empty containers as `[]` and `{}`.
/// - Neither mode ends with a newline.
enum JSONWriter {
    static func write(
        _ value: PropertyList, options: JSONEncodingOptions, keyOrder: EncodingOptions.KeyOrder
    ) throws(PropertyListError) -> [UInt8] {
        var emitter = JSONEmitter(options: options)
        try ValueWalk.walk(value, keyOrder: keyOrder, with: &emitter)
        return emitter.out
    }
}

/// What ``JSONWriter`` writes for each step of the walk.
struct JSONEmitter: ValueVisitor {
    var out: [UInt8] = []
    let options: JSONEncodingOptions

    init(options: JSONEncodingOptions) {
        self.options = options
        out.reserveCapacity(1024)
    }

    @inline(__always)
    private mutating func newline(indent level: Int) {
        out.append(0x0A)
        out.append(repeating: 0x20, count: 2 * level)
    }

    mutating func visitScalar(_ value: PropertyList, depth: Int) throws(WriteFailure) {
        switch value {
        case .string(let string):
            appendString(string)
        case .integer(let integer):
            out.appendDecimal(integer)
        case .real(let real):
            guard real.isFinite else {
                throw WriteFailure(.nonFiniteRealInJSON(real))
            }
            out.appendUTF8(real.description)
        case .boolean(let flag):
            if flag { out.append("true") } else { out.append("false") }
        case .date(let seconds):
            guard options.lossyDatesAndData else { throw WriteFailure(.dateInJSON) }
            guard let text = CalendarDate.formatISO8601(seconds, fractionDigits: 6) else {
                throw WriteFailure(.unwritableDate(format: "JSON", finite: seconds.isFinite))
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text)
            out.append(UInt8(ascii: "\""))
        case .data(let bytes):
            guard options.lossyDatesAndData else { throw WriteFailure(.dataInJSON) }
            out.append(UInt8(ascii: "\""))
            Base64.encode(bytes, 0..<bytes.count, into: &out)
            out.append(UInt8(ascii: "\""))
        case .uid(let uid):
            guard options.lossyDatesAndData else { throw WriteFailure(.uidInJSON) }
            out.append(UInt8(ascii: "{"))
            if options.prettyPrinted { newline(indent: depth + 1) }
            appendString("CF$UID")
            if options.prettyPrinted { out.append(" : ") } else { out.append(UInt8(ascii: ":")) }
            out.appendDecimal(PropertyList.Integer(UInt64(uid)))
            if options.prettyPrinted { newline(indent: depth) }
            out.append(UInt8(ascii: "}"))
        case .array, .dictionary:
            break  // the walk hands containers to begin/end
        }
    }

    mutating func beginArray(_ elements: [PropertyList], depth: Int) {
        out.append(UInt8(ascii: "["))
    }

    mutating func beginElement(_ index: Int, depth: Int) {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        if options.prettyPrinted { newline(indent: depth + 1) }
    }

    mutating func endArray(_ elements: [PropertyList], depth: Int) {
        if options.prettyPrinted, !elements.isEmpty { newline(indent: depth) }
        out.append(UInt8(ascii: "]"))
    }

    mutating func beginDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        out.append(UInt8(ascii: "{"))
    }

    mutating func beginEntry(_ key: String, index: Int, depth: Int) {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        if options.prettyPrinted { newline(indent: depth + 1) }
        appendString(key)
        if options.prettyPrinted { out.append(" : ") } else { out.append(UInt8(ascii: ":")) }
    }

    mutating func endDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        if options.prettyPrinted, !entries.isEmpty { newline(indent: depth) }
        out.append(UInt8(ascii: "}"))
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
            out.appendUTF8(string)
        } else {
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append("\\\"")
                case UInt8(ascii: "\\"): out.append("\\\\")
                case 0x08: out.append("\\b")
                case 0x0C: out.append("\\f")
                case 0x0A: out.append("\\n")
                case 0x0D: out.append("\\r")
                case 0x09: out.append("\\t")
                case ..<0x20:
                    out.append("\\u00")
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
