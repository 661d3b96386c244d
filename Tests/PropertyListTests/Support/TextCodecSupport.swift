import HangarTestSupport
import Testing

@testable import PropertyList

/// The text-codec tests' view of the corpus, on top of ``Corpus``: names are relative to `Tests/Corpus`, and a
/// missing file fails the test loudly (a silent skip would look like a pass).
enum CorpusFiles {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "The corpus file \(path) is missing (Tests/Corpus is part of the repository)" }
    }

    /// The bytes of `name` (relative to the corpus folder); records an issue and throws when it is missing.
    static func bytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let path = Corpus.directory + "/" + name
        guard let bytes = FileSystem.read(path) else {
            let missing = Missing(path: path)
            Issue.record("\(missing)", sourceLocation: sourceLocation)
            throw missing
        }
        return bytes
    }

    /// The files ending in `suffix`, valid ones by name, invalid ones as `invalid/name`; records an issue when
    /// there are none.
    static func files(invalid: Bool = false, suffix: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> [String]
    {
        invalid
            ? Corpus.invalidFiles(extension: suffix, sourceLocation: sourceLocation).map { "invalid/" + $0 }
            : Corpus.validFiles(extension: suffix, sourceLocation: sourceLocation)
    }
}

/// The `PropertyListError` `body` throws, or `nil` when it returns (any other error is recorded as an issue).
func propertyListError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> PropertyListError? {
    do {
        try body()
        return nil
    } catch let error as PropertyListError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Random property-list values for round trips.
struct ValueGenerator {
    /// What the target format can hold.
    struct Kinds {
        var dates = true
        var data = true
        var nonFiniteReals = true
    }

    var random: SeededGenerator
    let kinds: Kinds

    static let strings: [String] = [
        "", "a", "plain text", "Mässig, Maß", "<hello & 'hi' there!>", "tab\tnew\nline\rreturn", "★ or better",
        "emoji 🛩️✈️", "𝕢 four-byte", "]]> not CDATA", "&amp; literally", "quote \" and \\ backslash",
        "e\u{301} decomposed", "\u{7F} delete", "\u{FFFD}", "日本語のテキスト", "/slash/",
    ]
    static let keys: [String] = ["a", "b", "majorVersion", "aDate", "Åbenraa", "key with space", "", "é", "😀", "Z"]

    init(seed: UInt64, kinds: Kinds = Kinds()) {
        random = SeededGenerator(seed: seed)
        self.kinds = kinds
    }

    mutating func value(depth: Int = 0) -> PropertyList {
        let scalarCount = 6
        let choice = Int.random(in: 0..<(depth < 4 ? scalarCount + 2 : scalarCount), using: &random)
        switch choice {
        case 0: return .string(Self.strings.randomElement(using: &random) ?? "")
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .boolean(Bool.random(using: &random))
        case 4:
            if kinds.dates { return .date(Double(Int64.random(in: -63_000_000_000...250_000_000_000, using: &random))) }
            return .string("no date")
        case 5:
            if kinds.data {
                let count = Int.random(in: 0..<120, using: &random)
                return .data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            return .integer(7)
        case 6:
            let count = Int.random(in: 0..<5, using: &random)
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        default:
            let count = Int.random(in: 0..<5, using: &random)
            var entries: PropertyList.Dictionary = [:]
            for _ in 0..<count { entries[Self.keys.randomElement(using: &random) ?? "k"] = value(depth: depth + 1) }
            return .dictionary(entries)
        }
    }

    private mutating func integer() -> PropertyList.Integer {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return PropertyList.Integer(Int64.random(in: -1000...1000, using: &random))
        case 1: return PropertyList.Integer(Int64.random(in: .min ... .max, using: &random))
        case 2: return PropertyList.Integer(UInt64.random(in: .min ... .max, using: &random))
        default:
            return [PropertyList.Integer(Int64.min), PropertyList.Integer(UInt64.max), 0].randomElement(using: &random)
                ?? 0
        }
    }

    private mutating func real() -> Double {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return Double(Int.random(in: -100...100, using: &random)) / 8
        case 1:
            let bits = random.next()
            let value = Double(bitPattern: bits)
            return value.isFinite ? value : 1.5
        case 2:
            return [0.1, -0.0, 1e-300, Double.leastNonzeroMagnitude, 1.7976931348623157e308, 1e16, 123456789.125]
                .randomElement(using: &random) ?? 0
        case 3 where kinds.nonFiniteReals:
            return [Double.nan, .infinity, -.infinity].randomElement(using: &random) ?? 0
        default: return Double.random(in: -1e6...1e6, using: &random)
        }
    }
}
