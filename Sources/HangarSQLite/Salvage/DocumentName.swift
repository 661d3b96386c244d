import Hangar

/// A document's collection and key.
public struct DocumentName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The collection.
    public let collection: String
    /// The key.
    public let key: String

    /// The name of the document at `key` in `collection`.
    public init(collection: String, key: String) {
        self.collection = collection
        self.key = key
    }

    /// `collection/key`.
    public var description: String { "\(collection)/\(key)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.collection.utf8.lexicographicallyPrecedes(rhs.collection.utf8))
            || (lhs.collection == rhs.collection && lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8))
    }
}
