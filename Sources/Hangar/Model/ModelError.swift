/// The one error the model layer throws: what went wrong, in words, and where in the value.
///
/// Match on ``kind`` to react; show ``description`` to people. It reads like
/// `objects[3].airplanes[1].engineHours: expected integer, found string "12"` or
/// `pilots[0]: missing key "name"`. The path is kept as a ``ModelPath`` and rendered only in ``description``.
public struct ModelError: Error, CustomStringConvertible {
    /// What kind of failure this is. New kinds may be added, so `switch` on it with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Raw: Sendable, Hashable {
            case missingKey, typeMismatch, outOfRange, invalidValue
            case unknownClassTag, disallowedClassTag, unrepresentable
        }
        private let raw: Raw

        /// A required dictionary key is absent (the path names the dictionary, the message the key).
        public static let missingKey = Kind(raw: .missingKey)
        /// A value has another kind than the model expects (a string where an integer belongs).
        public static let typeMismatch = Kind(raw: .typeMismatch)
        /// A number does not fit the Swift type that reads it (`-1` into `UInt64`, `300` into `UInt8`).
        public static let outOfRange = Kind(raw: .outOfRange)
        /// A value of the right kind that the model rejects (an unknown enum case, a malformed URL, …).
        public static let invalidValue = Kind(raw: .invalidValue)
        /// A `"class"` tag that no type is registered under.
        public static let unknownClassTag = Kind(raw: .unknownClassTag)
        /// A `"class"` tag registered for another base type than the one being read.
        public static let disallowedClassTag = Kind(raw: .disallowedClassTag)
        /// A value that has no property-list form (a `nil` in an array, an `Encodable` that encodes nothing).
        public static let unrepresentable = Kind(raw: .unrepresentable)

        public var description: String {
            switch raw {
            case .missingKey: "missingKey"
            case .typeMismatch: "typeMismatch"
            case .outOfRange: "outOfRange"
            case .invalidValue: "invalidValue"
            case .unknownClassTag: "unknownClassTag"
            case .disallowedClassTag: "disallowedClassTag"
            case .unrepresentable: "unrepresentable"
            }
        }
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What went wrong, without the path: `expected integer, found string "12"`.
    public let message: String
    /// Where it went wrong, from the value the caller handed over.
    public let path: ModelPath
    /// The error that caused this one, if it came from elsewhere (a user's `Codable` code, say).
    public let underlying: (any Error)?

    /// An error of `kind` at `path`. Model initializers use it to reject values the readers cannot judge.
    public init(_ kind: Kind, _ message: String, at path: ModelPath = .root, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    /// `path: message`, or only the message at the root.
    public var description: String {
        path.isRoot ? message : "\(path): \(message)"
    }

    /// The same error, found inside the value at `prefix`.
    func rebased(onto prefix: ModelPath) -> ModelError {
        prefix.isRoot ? self : ModelError(kind, message, at: prefix.appending(contentsOf: path), underlying: underlying)
    }
}
