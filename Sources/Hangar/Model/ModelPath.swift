import PropertyList

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

    /// The path as `objects[3].airplanes[1].engineHours`, by the one rule of `PropertyList.pathText(_:)`
    /// (keys that are not plain names are written `["like this"]`); the root is the empty string.
    public var description: String {
        PropertyList.pathText(
            components.lazy.map { component -> PropertyList.PathComponent in
                switch component {
                case .key(let key): .key(key)
                case .index(let index): .index(index)
                }
            })
    }
}
