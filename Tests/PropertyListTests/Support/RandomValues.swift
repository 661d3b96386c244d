import HangarTestSupport

@testable import PropertyList

/// Random property-list values that stress the codecs: integer edges, special reals, non-ASCII and
/// astral strings, empty and long containers (counts past 14 use the extended form).
struct RandomValues {
    var generator: SeededGenerator
    /// Whether to produce values every format can hold exactly (XML drops date fractions and can't hold
    /// some control characters).
    var xmlSafe = false
    /// Whether to produce UIDs too (in about one leaf in seven), at CF's width edges and anywhere in 0 … 2^32−1.
    var uids = false

    init(seed: UInt64, xmlSafe: Bool = false, uids: Bool = false) {
        generator = SeededGenerator(seed: seed)
        self.xmlSafe = xmlSafe
        self.uids = uids
    }

    mutating func value(depth: Int = 0) -> PropertyList {
        if uids, Int.random(in: 0..<7, using: &generator) == 0 {
            let edges: [UInt32] = [0, 1, 255, 256, 65535, 65536, .max]
            return .uid(
                Bool.random(using: &generator)
                    ? edges.randomElement(using: &generator) ?? 0 : UInt32.random(in: 0 ... .max, using: &generator))
        }
        let kinds = depth >= 4 ? 6 : 8
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .string(string())
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .boolean(Bool.random(using: &generator))
        case 4:
            let seconds = Double(Int64.random(in: -4_000_000_000...4_000_000_000, using: &generator))
            return .date(xmlSafe ? seconds : seconds + Double(Int.random(in: 0..<1000, using: &generator)) / 1000)
        case 5:
            return .data(
                (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                })
        case 6: return .array((0..<count()).map { _ in value(depth: depth + 1) })
        default:
            var entries: PropertyList.Dictionary = [:]
            for _ in 0..<count() { entries[string()] = value(depth: depth + 1) }
            return .dictionary(entries)
        }
    }

    private mutating func count() -> Int {
        Bool.random(using: &generator)
            ? Int.random(in: 0..<4, using: &generator) : Int.random(in: 0..<20, using: &generator)
    }

    private mutating func integer() -> PropertyList.Integer {
        let edges: [PropertyList.Integer] = [
            0, 1, 14, 15, 255, 256, 65535, 65536, .init(UInt64(UInt32.max)), .init(UInt64(UInt32.max) + 1),
            .init(Int64.max), .init(UInt64(Int64.max) + 1), .init(UInt64.max), -1, -128, .init(Int64.min),
        ]
        if Bool.random(using: &generator) { return edges.randomElement(using: &generator) ?? 0 }
        return Bool.random(using: &generator)
            ? .init(Int64.random(in: .min ... .max, using: &generator))
            : .init(UInt64.random(in: 0 ... .max, using: &generator))
    }

    private mutating func real() -> Double {
        let specials: [Double] = [
            0, -0.0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1e100,
        ]
        if Int.random(in: 0..<4, using: &generator) == 0 { return specials.randomElement(using: &generator) ?? 0 }
        return Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator)).isNaN
            ? 1.5 : Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator))
    }

    private mutating func string() -> String {
        let alphabets: [[Unicode.Scalar]] = [
            Array("abcdefghijklmnopqrstuvwxyz0123456789 _-".unicodeScalars),
            Array("éüßøåçÆ€™".unicodeScalars),
            Array("日本語中文한국어".unicodeScalars),
            ["\u{1F680}", "\u{1F9D1}", "\u{10348}", "\u{E000}", "\u{FFFD}"],
            Array("<>&\"'\\/\n\t".unicodeScalars),
        ]
        var scalars = String.UnicodeScalarView()
        let length = Int.random(in: 0..<24, using: &generator)
        for _ in 0..<length {
            let alphabet = alphabets[Int.random(in: 0..<alphabets.count, using: &generator)]
            scalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(scalars)
    }
}
