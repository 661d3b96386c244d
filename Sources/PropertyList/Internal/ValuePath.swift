/// One step of a path inside a value: a dictionary key or an array index.
enum PathComponent: Hashable {
    case key(String)
    case index(Int)

    /// Renders `components` (root first) as `objects[2].photo`; keys that are not plain identifiers are
    /// quoted: `objects[2]["file name"]`. The root is the empty string.
    static func render(_ components: some Sequence<PathComponent>) -> String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if isIdentifier(key) {
                    text += text.isEmpty ? key : "." + key
                } else {
                    var escaped = ""
                    for scalar in key.unicodeScalars {
                        switch scalar {
                        case "\"": escaped += "\\\""
                        case "\\": escaped += "\\\\"
                        case "\n": escaped += "\\n"
                        default: escaped.unicodeScalars.append(scalar)
                        }
                    }
                    text += "[\"\(escaped)\"]"
                }
            }
        }
        return text
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "$")
        }
    }
}

extension PropertyList {
    /// The path (like `flights[3].departure`, the empty string for the root) of the first date that has a
    /// fraction of a second, in the order the writers emit values (dictionary keys sorted); `nil` when there
    /// is none.
    ///
    /// XML's `<date>` holds whole seconds (Apple's and Python's readers take no fraction), so the XML writer
    /// drops the fraction; use this to warn before writing XML. Binary plists keep the fraction.
    package var firstSubsecondDatePath: String? {
        // An explicit stack: a value built in memory may be deeper than any recursion should go.
        var steps: [(parent: Int, component: PathComponent)] = []
        var stack: [(value: PropertyList, step: Int)] = [(self, -1)]
        while let (value, step) = stack.popLast() {
            switch value {
            case .date(let seconds):
                guard seconds.isFinite, seconds != seconds.rounded(.down) else { continue }
                var components: [PathComponent] = []
                var cursor = step
                while cursor >= 0 {
                    components.append(steps[cursor].component)
                    cursor = steps[cursor].parent
                }
                return PathComponent.render(components.reversed())
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() where element.mayHoldDate {
                    steps.append((step, .index(index)))
                    stack.append((element, steps.count - 1))
                }
            case .dictionary(let entries):
                for (key, element) in entries.reversed() where element.mayHoldDate {
                    steps.append((step, .key(key)))
                    stack.append((element, steps.count - 1))
                }
            default:
                continue
            }
        }
        return nil
    }

    private var mayHoldDate: Bool {
        switch self {
        case .date, .array, .dictionary: true
        default: false
        }
    }
}
