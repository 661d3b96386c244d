/// Where a value sits inside a model's property list: `objects[3].airplanes[1].engineHours`.
///
/// A path is a linked list that grows from its leaf, so extending it while reading costs one small
/// allocation and nothing is rendered until ``description`` is asked for.
public struct ModelPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: a dictionary key or an array index.
    public enum Component: Sendable, Hashable {
        /// The value under a dictionary key.
        case key(String)
        /// The element at an array index.
        case index(Int)
    }

    private indirect enum Node: Sendable {
        case root
        case child(Component, parent: Node)
    }

    private let node: Node

    /// The empty path: the value being read itself.
    public static let root = ModelPath(node: .root)

    private init(node: Node) {
        self.node = node
    }

    /// A path made of `components`, outermost first.
    public init(_ components: some Sequence<Component>) {
        self = components.reduce(.root) { $0.appending($1) }
    }

    /// True for the empty path.
    public var isRoot: Bool {
        if case .root = node { true } else { false }
    }

    /// This path extended by one step.
    public func appending(_ component: Component) -> ModelPath {
        ModelPath(node: .child(component, parent: node))
    }

    /// This path extended by a dictionary key.
    public func appending(key: String) -> ModelPath {
        appending(.key(key))
    }

    /// This path extended by an array index.
    public func appending(index: Int) -> ModelPath {
        appending(.index(index))
    }

    /// This path followed by every step of `other`.
    public func appending(contentsOf other: ModelPath) -> ModelPath {
        other.components.reduce(self) { $0.appending($1) }
    }

    /// The steps from the root to the leaf.
    public var components: [Component] {
        var result: [Component] = []
        var current = node
        while case .child(let component, let parent) = current {
            result.append(component)
            current = parent
        }
        return result.reversed()
    }

    public static func == (lhs: ModelPath, rhs: ModelPath) -> Bool {
        lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(components)
    }

    /// The path as `objects[3].airplanes[1].engineHours`; keys that are not plain identifiers are written
    /// `["like this"]`; the root is the empty string.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where Self.isPlain(key):
                text += text.isEmpty ? key : ".\(key)"
            case .key(let key):
                text += "[\(key.debugDescription)]"
            }
        }
        return text
    }

    /// A key that reads unambiguously after a dot: a letter or `_`, then letters, digits, `_` or `-`.
    private static func isPlain(_ key: String) -> Bool {
        guard let first = key.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return key.utf8.allSatisfy { byte in
            isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
