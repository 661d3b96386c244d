import Hangar
import PropertyList

/// A seeded random number generator (SplitMix64): the same seed gives the same documents on every machine.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// A key path pattern of ``FormatValues``: `airplanes[].airframeHours`, `log[*].minutes`, `airplanes[]<Glider>.model`.
struct PathPattern: Sendable {
    let steps: [ShapeStep]

    /// Parses `text`: names joined by `.`, `[]` for any element, `[*]` for any key, `<Tag>` for a class tag.
    init?(_ text: String) {
        var steps: [ShapeStep] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.hasPrefix(".") { rest = rest.dropFirst() }
            if rest.hasPrefix("[]") {
                steps.append(.element)
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix("[*]") {
                steps.append(.anyKey)
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("<") {
                guard let end = rest.firstIndex(of: ">") else { return nil }
                steps.append(.tag(ExactString(String(rest[rest.index(after: rest.startIndex)..<end]))))
                rest = rest[rest.index(after: end)...]
            } else {
                let end = rest.firstIndex { $0 == "." || $0 == "[" || $0 == "<" } ?? rest.endIndex
                guard end > rest.startIndex else { return nil }
                steps.append(.key(ExactString(String(rest[..<end]))))
                rest = rest[end...]
            }
        }
        self.steps = steps
    }

    /// Whether `path` is this pattern; tag steps of `path` are skipped when the pattern names none.
    func matches(_ path: [ShapeStep]) -> Bool {
        let namesTags = steps.contains { if case .tag = $0 { true } else { false } }
        let compared = namesTags ? path : path.filter { if case .tag = $0 { false } else { true } }
        return compared == steps
    }
}

/// Makes documents from a shape, with property-list edge values: what old code may have written.
struct DocumentGenerator {
    let shape: FormatShape
    let narrowed: [(pattern: PathPattern, make: @Sendable (UInt64) -> PropertyList)]
    private let children: [[ShapeStep]: [[ShapeStep]]]

    init(shape: FormatShape, narrowed: [(pattern: PathPattern, make: @Sendable (UInt64) -> PropertyList)]) {
        self.shape = shape
        self.narrowed = narrowed
        var children: [[ShapeStep]: [[ShapeStep]]] = [:]
        for path in shape.sortedPaths where !path.isEmpty {
            children[Array(path.dropLast()), default: []].append(path)
        }
        self.children = children
    }

    /// The narrowed value for `path`, when an app said what it held.
    func narrowedValue(at path: [ShapeStep], _ random: inout SeededRandom) -> PropertyList? {
        narrowed.first { $0.pattern.matches(path) }.map { $0.make(random.next()) }
    }

    /// A document's content (no version keys).
    func document(_ random: inout SeededRandom) -> PropertyList.Dictionary {
        fields(at: [], depth: 0, &random)
    }

    private func fields(at path: [ShapeStep], depth: Int, _ random: inout SeededRandom) -> PropertyList.Dictionary {
        var result = PropertyList.Dictionary()
        for child in children[path] ?? [] {
            switch child.last {
            case .key(let key)?:
                let presence = shape.entries[child]?.presence ?? .present
                let chance: UInt64 = presence == .required ? 100 : presence == .optional ? 50 : 85
                guard random.next() % 100 < chance else { continue }  // an absent optional
                result[key.string] = value(at: child, depth: depth + 1, &random)
            case .anyKey?:
                let count = Int(random.next() % 4)
                for index in 0..<count {
                    let key = index == 1 && random.next() % 2 == 0 ? "\u{E9}" : EdgeValues.string(&random)
                    result[key] = value(at: child, depth: depth + 1, &random)
                }
                if random.next() % 4 == 0 {
                    // One string spelled twice: precomposed and decomposed are two keys.
                    result["caf\u{E9}"] = value(at: child, depth: depth + 1, &random)
                    result["cafe\u{301}"] = value(at: child, depth: depth + 1, &random)
                }
            default:
                continue
            }
        }
        return result
    }

    func value(at path: [ShapeStep], depth: Int, _ random: inout SeededRandom) -> PropertyList {
        if let narrowed = narrowedValue(at: path, &random) { return narrowed }
        let entry = shape.entries[path] ?? ShapeEntry()
        let kinds = entry.kinds.isEmpty ? [ValueKind.string, .integer, .dictionary] : entry.kinds.sorted()
        let kind = kinds[Int(random.next() % UInt64(kinds.count))]
        switch kind {
        case .dictionary:
            guard depth < 8 else { return .dictionary([:]) }
            if let tags = entry.tags, !tags.isEmpty {
                let names = tags.keys.sorted()
                let tag = names[Int(random.next() % UInt64(names.count))]
                var fieldsPath = path + [.tag(tag)]
                if children[fieldsPath] == nil, let target = tags[tag] { fieldsPath = path + [.tag(target)] }
                var result = fields(at: fieldsPath, depth: depth, &random)
                result["class"] = .string(tag.string)
                return .dictionary(result)
            }
            return .dictionary(fields(at: path, depth: depth, &random))
        case .array:
            let element = path + [.element]
            guard depth < 8, shape.entries[element] != nil else { return .array([]) }
            let count = Int(random.next() % 4)
            return .array((0..<count).map { _ in value(at: element, depth: depth + 1, &random) })
        default:
            return EdgeValues.value(of: kind, &random)
        }
    }
}

/// The edge values of each kind.
enum EdgeValues {
    static func value(of kind: ValueKind, _ random: inout SeededRandom) -> PropertyList {
        switch kind {
        case .string: .string(string(&random))
        case .integer: .integer(integer(&random))
        case .real: .real(real(&random))
        case .boolean: .boolean(random.next() % 2 == 0)
        case .date: .date(date(&random))
        case .data: .data(data(&random))
        case .uid: .uid(UInt32(truncatingIfNeeded: random.next()))
        case .array: .array([])
        case .dictionary: .dictionary([:])
        }
    }

    /// Empty, precomposed and decomposed `é`, long, an emoji with a variation selector, digits, a line break,
    /// a right-to-left override.
    private static let strings = [
        "", "a", "\u{E9}", "e\u{301}", String(repeating: "long ", count: 1_000), "\u{1F6E9}\u{FE0F}", " spaced ",
        "12", "-1", "line\nbreak", "\u{202E}rtl",
    ]

    static func string(_ random: inout SeededRandom) -> String {
        let fixed = strings
        let pick = Int(random.next() % UInt64(fixed.count + 3))
        if pick < fixed.count { return fixed[pick] }
        let length = Int(random.next() % 12) + 1
        return String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(97 + random.next() % 26))) })
    }

    static func integer(_ random: inout SeededRandom) -> PropertyList.Integer {
        switch random.next() % 9 {
        case 0: PropertyList.Integer(0 as Int64)
        case 1: PropertyList.Integer(-1 as Int64)
        case 2: PropertyList.Integer(Int64.min)
        case 3: PropertyList.Integer(Int64.max)
        case 4: PropertyList.Integer(UInt64.max)
        case 5: PropertyList.Integer(UInt64(Int64.max) + 1)
        case 6: PropertyList.Integer(Int64(bitPattern: random.next()))
        default: PropertyList.Integer(Int64(random.next() % 10_000))
        }
    }

    static func real(_ random: inout SeededRandom) -> Double {
        let fixed: [Double] = [
            0, -0.0, .greatestFiniteMagnitude, -1e308, .leastNonzeroMagnitude, .leastNormalMagnitude, 0.1, 1.5,
        ]
        let pick = Int(random.next() % UInt64(fixed.count + 1))
        return pick < fixed.count ? fixed[pick] : Double(random.next() % 1_000_000) / 7
    }

    /// Seconds since 2001: before 1970, sub-second, far future, now-ish.
    static func date(_ random: inout SeededRandom) -> Double {
        let fixed: [Double] = [-1e10, -978_307_200.5, 0, 123_456_789.125, 4e10, 700_000_000]
        return fixed[Int(random.next() % UInt64(fixed.count))]
    }

    static func data(_ random: inout SeededRandom) -> [UInt8] {
        switch random.next() % 3 {
        case 0: []
        case 1: [0]
        default: (0..<64).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
    }
}
