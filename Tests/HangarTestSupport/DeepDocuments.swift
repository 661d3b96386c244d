public import PropertyList

/// Documents as deep as the decoders allow, for the tests that every entry (async and blocking reads and writes,
/// single writes, HTTP, sync) survives them: the decoders refuse nesting past 512 containers.
public enum DeepDocuments {
    /// The most containers a test document nests: one below the decoders' 512.
    public static let deepestLevels = 511

    /// An envelope (version 1.0) nesting `levels` containers in all, itself the first: dictionaries holding a
    /// dictionary under `next`, each with its depth under `level`, with an array every tenth level.
    public static func envelope(levels: Int = deepestLevels) -> PropertyList {
        precondition(levels >= 1, "an envelope is a container")
        var value: PropertyList = ["level": .integer(.init(levels))]
        for level in stride(from: levels - 1, through: 2, by: -1) {
            value = level % 10 == 0 ? [value] : ["level": .integer(.init(level)), "next": value]
        }
        return levels == 1
            ? ["majorVersion": 1, "minorVersion": 0] : ["majorVersion": 1, "minorVersion": 0, "next": value]
    }

    /// How many containers `value` nests (a scalar: 0).
    public static func depth(of value: PropertyList) -> Int {
        var deepest = 0
        var pending: [(PropertyList, Int)] = [(value, 1)]
        while let (next, depth) = pending.popLast() {
            switch next {
            case .dictionary(let entries):
                deepest = max(deepest, depth)
                for (_, child) in entries { pending.append((child, depth + 1)) }
            case .array(let elements):
                deepest = max(deepest, depth)
                for child in elements { pending.append((child, depth + 1)) }
            default:
                continue
            }
        }
        return deepest
    }
}
