extension PropertyList {
    /// The path (like `flights[3].departure`, the empty string for the root) of the first date that has a
    /// fraction of a second, in the order the values keep (a dictionary's keys in its kept order); `nil` when there
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
                return Self.pathText(components.reversed())
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
