import PropertyList

/// A key path as `plutil` spells it: `.` separates the steps, `\.` is a dot inside a key, and a step that is a
/// decimal integer indexes an array (under a dictionary it is a key like any other).
struct PlistKeyPath: CustomStringConvertible {
    /// The steps, with their escapes undone.
    let steps: [String]

    /// The key path `text` spells.
    init(_ text: String) {
        var steps: [String] = []
        var step = ""
        var characters = text.unicodeScalars.makeIterator()
        while let scalar = characters.next() {
            switch scalar {
            case "\\":
                guard let next = characters.next() else {
                    step.unicodeScalars.append(scalar)
                    break
                }
                // Only a dot is escaped; any other backslash is part of the key.
                if next != "." { step.unicodeScalars.append(scalar) }
                step.unicodeScalars.append(next)
            case ".":
                steps.append(step)
                step = ""
            default:
                step.unicodeScalars.append(scalar)
            }
        }
        steps.append(step)
        self.steps = steps
    }

    /// The key path of the first `count` steps, spelt again (dots in keys escaped).
    func prefix(_ count: Int) -> String {
        steps.prefix(count).map { $0.replacing(".", with: "\\.") }.joined(separator: ".")
    }

    var description: String { prefix(steps.count) }

    /// `step` as an array index, when it is a decimal integer without a sign.
    static func index(_ step: String) -> Int? {
        guard !step.isEmpty, step.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(step)
    }
}

/// Why a key path does not lead where a verb needs it to; the reason of a `FILE: reason` line.
struct PlistKeyPathFailure: Error, CustomStringConvertible {
    let description: String
}

/// What an edit does at the last step of its key path.
enum Edit {
    /// Adds a value where there is none (at an array index, before the element there; at the count, last).
    case insert(PropertyList)
    /// Appends a value to the array the key path names.
    case append(PropertyList)
    /// Sets a value, in the place of the old one or, for a missing key, at the end of its dictionary.
    case replace(PropertyList)
    /// Removes the value.
    case remove
}

/// The value at `keyPath` in `file` (`-`: standard input), of the type `expected` names when given: what
/// `extract` and `type` read. A `FILE: reason` failure otherwise.
func lookUp(_ keyPath: String, in file: String, expecting expected: ValueType?) throws(FileFailure) -> PropertyList {
    let (document, _) = try loadPropertyList(at: file)
    let path = PlistKeyPath(keyPath)
    do throws(PlistKeyPathFailure) {
        let value = try document.value(at: path)
        try value.check(expected, at: path)
        return value
    } catch {
        throw FileFailure(path: file, reason: error.description)
    }
}

extension PropertyList {
    /// The value at `path`, or a failure naming the key path up to the step that found nothing.
    func value(at path: PlistKeyPath) throws(PlistKeyPathFailure) -> PropertyList {
        var current = self
        for (depth, step) in path.steps.enumerated() {
            guard let child = current.child(step) else { throw Self.missing(path, through: depth) }
            current = child
        }
        return current
    }

    /// The value under `step`: a dictionary's key, or an array's index.
    private func child(_ step: String) -> PropertyList? {
        switch self {
        case .dictionary(let entries): entries[step]
        case .array(let elements):
            PlistKeyPath.index(step).flatMap { elements.indices.contains($0) ? elements[$0] : nil }
        default: nil
        }
    }

    /// Applies `edit` at `path`; everything else, dictionaries' key order included, stays as it was.
    mutating func apply(_ edit: Edit, at path: PlistKeyPath) throws(PlistKeyPathFailure) {
        try apply(edit, at: path, depth: 0)
    }

    private mutating func apply(_ edit: Edit, at path: PlistKeyPath, depth: Int) throws(PlistKeyPathFailure) {
        let step = path.steps[depth]
        let isLast = depth == path.steps.count - 1
        switch self {
        case .dictionary(var entries):
            self = .boolean(false)  // Lets `entries` be edited in place rather than copied.
            defer { self = .dictionary(entries) }
            if isLast {
                try Self.apply(edit, to: &entries, key: step, path: path)
            } else {
                guard var child = entries[step] else { throw Self.missing(path, through: depth) }
                entries[step] = .boolean(false)
                defer { entries[step] = child }
                try child.apply(edit, at: path, depth: depth + 1)
            }
        case .array(var elements):
            guard let index = PlistKeyPath.index(step) else { throw Self.missing(path, through: depth) }
            self = .boolean(false)
            defer { self = .array(elements) }
            if isLast {
                try Self.apply(edit, to: &elements, index: index, path: path)
            } else {
                guard elements.indices.contains(index) else { throw Self.missing(path, through: depth) }
                try elements[index].apply(edit, at: path, depth: depth + 1)
            }
        default:
            throw Self.missing(path, through: depth)
        }
    }

    private static func apply(
        _ edit: Edit, to entries: inout PropertyList.Dictionary, key: String, path: PlistKeyPath
    ) throws(PlistKeyPathFailure) {
        switch edit {
        case .insert(let value):
            guard !entries.contains(key: key) else {
                throw PlistKeyPathFailure(description: "A value already exists at key path \(path)")
            }
            entries[key] = value
        case .append(let value):
            guard case .array(var elements) = entries[key] else { throw notAnArray(path, entries[key]) }
            elements.append(value)
            entries[key] = .array(elements)
        case .replace(let value):
            entries[key] = value
        case .remove:
            guard entries.removeValue(forKey: key) != nil else { throw missing(path, through: path.steps.count - 1) }
        }
    }

    private static func apply(
        _ edit: Edit, to elements: inout [PropertyList], index: Int, path: PlistKeyPath
    ) throws(PlistKeyPathFailure) {
        switch edit {
        case .insert(let value):
            guard index <= elements.count else {
                let parent = path.steps.count > 1 ? "key path \(path.prefix(path.steps.count - 1))" : "the root"
                throw PlistKeyPathFailure(
                    description: "Index \(index) is past the end of the array at \(parent) (\(elements.count) values)")
            }
            elements.insert(value, at: index)
        case .append(let value):
            guard elements.indices.contains(index), case .array(var inner) = elements[index] else {
                throw notAnArray(path, elements.indices.contains(index) ? elements[index] : nil)
            }
            inner.append(value)
            elements[index] = .array(inner)
        case .replace(let value):
            guard elements.indices.contains(index) else { throw missing(path, through: path.steps.count - 1) }
            elements[index] = value
        case .remove:
            guard elements.indices.contains(index) else { throw missing(path, through: path.steps.count - 1) }
            elements.remove(at: index)
        }
    }

    private static func missing(_ path: PlistKeyPath, through depth: Int) -> PlistKeyPathFailure {
        PlistKeyPathFailure(description: "No value at key path \(path.prefix(depth + 1))")
    }

    private static func notAnArray(_ path: PlistKeyPath, _ value: PropertyList?) -> PlistKeyPathFailure {
        guard let value else { return missing(path, through: path.steps.count - 1) }
        return PlistKeyPathFailure(
            description: "-append needs an array at key path \(path), which holds \(ValueType(value).article)")
    }
}
