/// The one error the `PropertyList` module throws: what went wrong, a readable message, and where.
///
/// Match on ``code`` (or, finer, ``reason``) to react; show ``description`` to people. It reads like
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
        /// Well-formed, but uses a feature this module does not map (sets, URLs, `bplist1x`, …).
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

    /// Which failure this is, finer than ``code``: what code and tests match on (never ``message``).
    /// New reasons may be added, so `switch` on it with a `default`.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The name of the reason, as its static member spells it.
        public var description: String { name }

        /// Nothing to read.
        public static let emptyInput = Reason("emptyInput")
        /// Bytes without the `bplist` header given to the binary reader.
        public static let notBinary = Reason("notBinary")
        /// A binary property list of another version than `bplist00`.
        public static let unsupportedBinaryVersion = Reason("unsupportedBinaryVersion")
        /// A value type this module does not map (sets, null, URLs, UUIDs, `bplist1x` types).
        public static let unsupportedType = Reason("unsupportedType")
        /// A feature of a format this module does not read.
        public static let unsupportedFeature = Reason("unsupportedFeature")
        /// A text encoding this module does not convert.
        public static let unsupportedEncoding = Reason("unsupportedEncoding")
        /// Writing a format that is read only (OpenStep).
        public static let readOnlyFormat = Reason("readOnlyFormat")
        /// A binary trailer, offset table, marker, count or reference that does not hold together.
        public static let binaryStructure = Reason("binaryStructure")
        /// An object that contains itself.
        public static let referenceCycle = Reason("referenceCycle")
        /// A dictionary key that is not a string.
        public static let nonStringKey = Reason("nonStringKey")
        /// Text that breaks its format's grammar.
        public static let syntax = Reason("syntax")
        /// A string, comment, tag or section that never ends.
        public static let unterminated = Reason("unterminated")
        /// A dictionary key without its value.
        public static let missingValue = Reason("missingValue")
        /// Bytes that are not valid in the text's encoding (invalid UTF-8, say).
        public static let invalidEncoding = Reason("invalidEncoding")
        /// A UTF-16 surrogate without its partner.
        public static let unpairedSurrogate = Reason("unpairedSurrogate")
        /// An escape sequence or character reference the format does not define or allow.
        public static let invalidEscape = Reason("invalidEscape")
        /// A character the format does not allow where it was found.
        public static let invalidCharacter = Reason("invalidCharacter")
        /// A number that does not parse.
        public static let invalidNumber = Reason("invalidNumber")
        /// A number outside what a property list holds.
        public static let numberOutOfRange = Reason("numberOutOfRange")
        /// A date that does not parse.
        public static let invalidDate = Reason("invalidDate")
        /// A date that is NaN or infinite.
        public static let nonFiniteDate = Reason("nonFiniteDate")
        /// Data (base64 or hex digits) that does not decode.
        public static let invalidData = Reason("invalidData")
        /// JSON `null`, which has no property-list form.
        public static let nullValue = Reason("nullValue")
        /// Nesting deeper than the limit.
        public static let tooDeep = Reason("tooDeep")
        /// More objects than the input can hold or ``DecodingLimits/maxObjects`` allows.
        public static let tooManyObjects = Reason("tooManyObjects")
        /// Shared references expanding past ``DecodingLimits/maxExpandedNodes``.
        public static let expansionBudget = Reason("expansionBudget")
        /// More values to write than the writers' budget.
        public static let tooManyValues = Reason("tooManyValues")
        /// A date in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
        public static let dateInJSON = Reason("dateInJSON")
        /// Data in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
        public static let dataInJSON = Reason("dataInJSON")
        /// A UID (keyed archives' object reference) in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
        public static let uidInJSON = Reason("uidInJSON")
        /// A NaN or infinite real where the format has none (JSON).
        public static let nonFiniteReal = Reason("nonFiniteReal")
        /// A date the format cannot write (not finite, or outside years 0000…9999).
        public static let unwritableDate = Reason("unwritableDate")
        /// A character the format cannot hold (a C0 control in XML, say).
        public static let unwritableCharacter = Reason("unwritableCharacter")
    }

    /// What kind of failure this is.
    public let code: Code
    /// Which failure this is, within its ``code``.
    public let reason: Reason
    /// What went wrong, in words, without the location.
    public let message: String
    /// Where it went wrong, when known.
    public let location: Location?

    init(code: Code, reason: Reason, message: String, location: Location?) {
        self.code = code
        self.reason = reason
        self.message = message
        self.location = location
    }

    public var description: String {
        guard let location else { return message }
        return "\(message) \(location)"
    }
}
