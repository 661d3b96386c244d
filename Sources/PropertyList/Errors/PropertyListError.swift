/// The one error the `PropertyList` module throws: what went wrong, a readable message, and where.
///
/// Match on ``code`` to react; show ``description`` to people. It reads like
/// `Found non-key inside <dict> at line 40, column 3` or
/// `Object 7 refers to object 3 that is already on the path (a reference cycle) at byte offset 112`.
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added, so `switch` on it with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Raw: Sendable, Hashable {
            case unknownFormat, malformed, unsupported, invalidValue, limitExceeded, unrepresentable
        }
        private let raw: Raw

        /// The bytes are not a property list in any format this module reads.
        public static let unknownFormat = Code(raw: .unknownFormat)
        /// The input breaks its format's grammar or structure (truncated, out-of-range offset, bad tag, …).
        public static let malformed = Code(raw: .malformed)
        /// Well-formed, but uses a feature this module does not map (sets, UIDs, `bplist1x`, …).
        public static let unsupported = Code(raw: .unsupported)
        /// A scalar that cannot be read as the value it claims to be (bad UTF-16, NaN date, integer out of range, …).
        public static let invalidValue = Code(raw: .invalidValue)
        /// A decoding budget ran out: nesting depth, object count or total expanded size (``DecodingLimits``).
        public static let limitExceeded = Code(raw: .limitExceeded)
        /// The value cannot be written in the requested format (a date in strict JSON, a non-finite real in JSON, …).
        public static let unrepresentable = Code(raw: .unrepresentable)

        public var description: String {
            switch raw {
            case .unknownFormat: "unknownFormat"
            case .malformed: "malformed"
            case .unsupported: "unsupported"
            case .invalidValue: "invalidValue"
            case .limitExceeded: "limitExceeded"
            case .unrepresentable: "unrepresentable"
            }
        }
    }

    /// Where in the input (or in the value, for writers) the failure was found.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// A byte offset from the start of a binary input.
        case byteOffset(Int)
        /// A 1-based line and column (in UTF-8 bytes) of a text input.
        case line(Int, column: Int)
        /// A path inside a value, like `objects[2].photo` (empty for the root).
        case path(String)

        public var description: String {
            switch self {
            case .byteOffset(let offset): "at byte offset \(offset)"
            case .line(let line, let column): "at line \(line), column \(column)"
            case .path(let path): path.isEmpty ? "at the root" : "at \(path)"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, in words, without the location.
    public let message: String
    /// Where it went wrong, when known.
    public let location: Location?

    /// An error with the given code, message and location.
    public init(_ code: Code, _ message: String, at location: Location? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        guard let location else { return message }
        return "\(message) \(location)"
    }
}
