import Hangar
import PropertyList

/// The kinds of value a property list holds, as a shape records them.
enum ValueKind: Int, Sendable, Hashable, Comparable, CaseIterable {
    case string, integer, real, boolean, date, data, array, dictionary, uid

    init(_ value: PropertyList) {
        switch value {
        case .string: self = .string
        case .integer: self = .integer
        case .real: self = .real
        case .boolean: self = .boolean
        case .date: self = .date
        case .data: self = .data
        case .array: self = .array
        case .dictionary: self = .dictionary
        case .uid: self = .uid
        }
    }

    /// The kind `PropertyList.kindName` names, if any.
    init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name.hasSameBytes(as: name) }) else { return nil }
        self = kind
    }

    var name: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "uid"
        }
    }

    static func < (lhs: ValueKind, rhs: ValueKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One step of a path in a shape: `airplanes[]<Glider>.model` is key, element, tag, key.
enum ShapeStep: Sendable, Hashable {
    case key(ExactString)
    case element
    case anyKey
    case tag(ExactString)

    init(_ step: ModelReadTrace.Step) {
        switch step {
        case .key(let key): self = .key(key)
        case .element: self = .element
        case .anyKey: self = .anyKey
        case .tag(let tag): self = .tag(tag)
        }
    }

    /// The step as the manifest spells it: a key as itself (`\` before one that starts with `[`, `<` or `\`),
    /// `[]` for any element, `[*]` for any key of a map, `<Tag>` for the fields of a tagged class.
    var manifestText: String {
        switch self {
        case .key(let key):
            let text = key.string
            return text.hasPrefix("[") || text.hasPrefix("<") || text.hasPrefix("\\") ? "\\" + text : text
        case .element: return "[]"
        case .anyKey: return "[*]"
        case .tag(let tag): return "<" + tag.string + ">"
        }
    }

    init?(manifestText text: String) {
        if text.hasSameBytes(as: "[]") {
            self = .element
        } else if text.hasSameBytes(as: "[*]") {
            self = .anyKey
        } else if text.hasPrefix("<"), text.hasSuffix(">"), text.unicodeScalars.count >= 2 {
            self = .tag(ExactString(String(String.UnicodeScalarView(text.unicodeScalars.dropFirst().dropLast()))))
        } else if text.hasPrefix("\\") {
            self = .key(ExactString(String(String.UnicodeScalarView(text.unicodeScalars.dropFirst()))))
        } else if text.hasPrefix("[") || text.hasPrefix("<") {
            return nil
        } else {
            self = .key(ExactString(text))
        }
    }
}

/// Whether a key must be there: the reader requires it, tolerates its absence, or (no reader said) it was there.
enum Presence: String, Sendable, Hashable {
    case required, optional
    /// Seen in the documents the shape was taken from; no reader said whether it may be absent.
    case present
}

/// What a shape knows of one path.
struct ShapeEntry: Sendable, Hashable {
    var kinds: Set<ValueKind> = []
    var presence: Presence = .present
    /// Where a class is read: each allowed tag and the tag it reads as (itself, or an alias's target).
    var tags: [ExactString: ExactString]?
}

/// A version's shape: every key path its reader asks for, with kinds, presence and class tags.
struct FormatShape: Sendable, Hashable {
    /// Where it came from.
    enum Source: String, Sendable, Hashable {
        /// What today's reader asked for, reading the samples (and the samples' values below raw reads).
        case reader
        /// The frozen documents alone: a version frozen before the kit, or captured from a store.
        case documents
    }

    var source: Source
    var entries: [[ShapeStep]: ShapeEntry] = [:]

    init(source: Source, entries: [[ShapeStep]: ShapeEntry] = [:]) {
        self.source = source
        self.entries = entries
    }

    /// The paths, in the order messages and the manifest list them (by their rendered bytes).
    var sortedPaths: [[ShapeStep]] {
        entries.keys.sorted { ExactString(Self.render($0)) < ExactString(Self.render($1)) }
    }

    /// The paths one step below `path`.
    func children(of path: [ShapeStep]) -> [[ShapeStep]] {
        entries.keys.filter { $0.count == path.count + 1 && Array($0.prefix(path.count)) == path }
    }

    /// `airplanes[]<Glider>.model`; the top level is `(top level)`.
    static func render(_ path: [ShapeStep]) -> String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key):
                let name = key.string
                let plain = isPlainName(name)
                if plain {
                    text += text.isEmpty ? name : "." + name
                } else {
                    text += "[" + name.debugDescription + "]"
                }
            case .element: text += "[]"
            case .anyKey: text += "[*]"
            case .tag(let tag): text += "<" + tag.string + ">"
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    /// A key written as it is in a rendered path: ASCII letters, digits and `_`, not starting with a digit.
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    // MARK: Making shapes

    /// The shape `reads` describe, completed from `documents` (the content the reads were made on) below every
    /// path the reader took whole or did not read into.
    static func fromReads(_ reads: [ModelRead], documents: [PropertyList]) -> FormatShape {
        var shape = FormatShape(source: .reader)
        for read in reads {
            let path = read.path.map(ShapeStep.init)
            var entry = shape.entries[path] ?? ShapeEntry(presence: read.isRequired ? .required : .optional)
            if !read.isRequired { entry.presence = .optional }
            for name in read.expectedKinds ?? [] { if let kind = ValueKind(name: name) { entry.kinds.insert(kind) } }
            if let found = read.foundKind, let kind = ValueKind(name: found) { entry.kinds.insert(kind) }
            if let tags = read.allowedTags {
                var allowed = entry.tags ?? [:]
                for tag in tags { allowed[tag.tag] = tag.readsAs }
                entry.tags = allowed
            }
            shape.entries[path] = entry
        }
        // Below what the reader did not read into, the samples say what was there.
        let leaves = shape.entries.keys.filter { path in shape.children(of: path).isEmpty }
        for leaf in leaves {
            for value in documents.flatMap({ values(at: leaf, in: $0) }) { shape.addObserved(value, at: leaf) }
        }
        return shape
    }

    /// The shape of the frozen `documents` alone (their content, without the version keys).
    static func fromDocuments(_ documents: [PropertyList]) -> FormatShape {
        var shape = FormatShape(source: .documents)
        for document in documents { shape.addObserved(document, at: []) }
        shape.entries[[]] = nil
        return shape
    }

    /// Records `value`, seen at `path`, and everything inside it, as observed (presence `present`) where the
    /// shape has nothing better.
    mutating func addObserved(_ value: PropertyList, at path: [ShapeStep]) {
        if !path.isEmpty {
            var entry = entries[path] ?? ShapeEntry()
            entry.kinds.insert(ValueKind(value))
            entries[path] = entry
        }
        switch value {
        case .array(let elements):
            for element in elements { addObserved(element, at: path + [.element]) }
        case .dictionary(let fields):
            var fieldsPath = path
            if case .string(let tag)? = fields["class"] {
                var entry = entries[path] ?? ShapeEntry(kinds: [.dictionary])
                var tags = entry.tags ?? [:]
                if tags[ExactString(tag)] == nil { tags[ExactString(tag)] = ExactString(tag) }
                entry.tags = tags
                entries[path] = entry
                fieldsPath = path + [.tag(ExactString(tag))]
            }
            let isMap = entries[fieldsPath + [.anyKey]] != nil
            for (key, field) in fields {
                if fieldsPath.count > path.count, key.hasSameBytes(as: "class") { continue }
                if path.isEmpty,
                    key.hasSameBytes(as: DocumentFormat.majorKey) || key.hasSameBytes(as: DocumentFormat.minorKey)
                {
                    continue
                }
                addObserved(field, at: fieldsPath + [isMap ? .anyKey : .key(ExactString(key))])
            }
        default:
            break
        }
    }

    /// Every value at `path` in `value` (an element step reaches every element, a tag step the dictionaries
    /// tagged so).
    static func values(at path: [ShapeStep], in value: PropertyList) -> [PropertyList] {
        var current = [value]
        for step in path {
            current = current.flatMap { value -> [PropertyList] in
                switch (step, value) {
                case (.key(let key), .dictionary(let fields)): fields[key.string].map { [$0] } ?? []
                case (.element, .array(let elements)): elements
                case (.anyKey, .dictionary(let fields)): fields.values
                case (.tag(let tag), .dictionary(let fields)):
                    fields["class"]?.stringValue.map { $0.hasSameBytes(as: tag.string) } == true ? [value] : []
                default: []
                }
            }
        }
        return current
    }
}
