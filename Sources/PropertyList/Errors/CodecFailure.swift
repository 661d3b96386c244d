/// Every way a reader or writer of this module fails, in one place. Each case knows its public
/// ``PropertyListError/Code``, its ``PropertyListError/Reason`` and its message; ``PropertyListError`` is made
/// from a case and a location here and nowhere else.
///
/// Cases whose message is written at the failing site carry it as text (the wording depends on what was found
/// there); the reason is what code matches on, never the text.
enum CodecFailure: Error, Sendable {
    // MARK: Formats
    /// Nothing to read.
    case emptyInput
    /// No `bplist` header.
    case notBinary
    /// `bplist1x` or another version than `00`.
    case unsupportedBinaryVersion(String)
    /// A type this module does not map (sets, null, URLs, UUIDs, bplist1x types), named.
    case unsupportedType(String)
    /// A feature of a format this module does not read, described.
    case unsupportedFeature(String)
    /// A text encoding this module does not convert, named.
    case unsupportedEncoding(String)
    /// Writing a format that is read only.
    case readOnlyFormat(String)

    // MARK: Structure
    /// A binary property list whose trailer, offsets, markers or counts do not hold together, described.
    case binaryStructure(String)
    /// An object that contains itself.
    case referenceCycle(object: Int)
    /// A binary dictionary key that is not a string.
    case nonStringKey(object: Int)
    /// Text that breaks its format's grammar, described ("Found … where … was expected").
    case syntax(String)
    /// A string, comment, tag or section that never ends, named.
    case unterminated(String)
    /// An XML element without its closing tag, and where it was opened when known.
    case unclosedElement(String, openedAt: String?)
    /// A dictionary key without its value.
    case missingValue(String)

    // MARK: Values
    /// Bytes that are not valid in the text's encoding, described.
    case invalidEncoding(String)
    /// A UTF-16 surrogate without its partner, described.
    case unpairedSurrogate(String)
    /// An escape sequence the format does not define, described.
    case invalidEscape(String)
    /// A well-formed character reference or escape to a code point the format does not allow, described.
    case disallowedCodePoint(String)
    /// A character the format does not allow in the input, described.
    case invalidCharacter(String)
    /// A number that does not parse, described.
    case invalidNumber(String)
    /// A number outside what a property list holds, described.
    case numberOutOfRange(String)
    /// A date that does not parse, described.
    case invalidDate(String)
    /// A date that is NaN or infinite, read (an invalid value) or about to be written (unrepresentable).
    case nonFiniteDate(Double, writing: Bool)
    /// Data (base64 or hex digits) that does not decode, described.
    case invalidData(String)
    /// JSON `null`.
    case nullValue

    // MARK: Limits
    /// Nesting past ``DecodingLimits/maxDepth`` (or the writers' 512), with the format's word for containers.
    case tooDeep(limit: Int, containers: String)
    /// More objects than the input can hold or the limit allows, described.
    case tooManyObjects(String, overLimit: Bool)
    /// Shared references expanding past ``DecodingLimits/maxExpandedNodes``.
    case expansionBudget(limit: Int)
    /// A value with more values to write than the writers' budget.
    case tooManyValues(limit: Int)

    // MARK: Writing
    /// A date in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
    case dateInJSON
    /// Data in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
    case dataInJSON
    /// A UID in JSON without ``JSONEncodingOptions/lossyDatesAndData``.
    case uidInJSON
    /// A NaN or infinite real in JSON.
    case nonFiniteRealInJSON(Double)
    /// A date the format cannot write (not finite, or outside years -9999…9999).
    case unwritableDate(format: String, finite: Bool)
    /// A character the format cannot hold.
    case unwritableCharacter(UInt32, format: String)

    var code: PropertyListError.Code {
        switch self {
        case .emptyInput, .notBinary: .unknownFormat
        case .unsupportedBinaryVersion, .unsupportedType, .unsupportedFeature, .unsupportedEncoding, .readOnlyFormat,
            .nullValue:
            .unsupported
        case .binaryStructure, .referenceCycle, .nonStringKey, .syntax, .unterminated, .unclosedElement, .missingValue:
            .malformed
        case .invalidCharacter: .malformed
        case .invalidEncoding, .unpairedSurrogate, .invalidNumber, .numberOutOfRange, .invalidDate, .invalidData,
            .disallowedCodePoint:
            .invalidValue
        case .nonFiniteDate(_, let writing): writing ? .unrepresentable : .invalidValue
        case .invalidEscape: .malformed
        case .tooDeep, .expansionBudget, .tooManyValues: .limitExceeded
        case .tooManyObjects(_, let overLimit): overLimit ? .limitExceeded : .malformed
        case .dateInJSON, .dataInJSON, .uidInJSON, .nonFiniteRealInJSON, .unwritableDate, .unwritableCharacter:
            .unrepresentable
        }
    }

    var reason: PropertyListError.Reason {
        switch self {
        case .emptyInput: .emptyInput
        case .notBinary: .notBinary
        case .unsupportedBinaryVersion: .unsupportedBinaryVersion
        case .unsupportedType: .unsupportedType
        case .unsupportedFeature: .unsupportedFeature
        case .unsupportedEncoding: .unsupportedEncoding
        case .readOnlyFormat: .readOnlyFormat
        case .binaryStructure: .binaryStructure
        case .referenceCycle: .referenceCycle
        case .nonStringKey: .nonStringKey
        case .syntax: .syntax
        case .unterminated, .unclosedElement: .unterminated
        case .missingValue: .missingValue
        case .invalidEncoding: .invalidEncoding
        case .unpairedSurrogate: .unpairedSurrogate
        case .invalidEscape, .disallowedCodePoint: .invalidEscape
        case .invalidCharacter: .invalidCharacter
        case .invalidNumber: .invalidNumber
        case .numberOutOfRange: .numberOutOfRange
        case .invalidDate: .invalidDate
        case .nonFiniteDate: .nonFiniteDate
        case .invalidData: .invalidData
        case .nullValue: .nullValue
        case .tooDeep: .tooDeep
        case .tooManyObjects: .tooManyObjects
        case .expansionBudget: .expansionBudget
        case .tooManyValues: .tooManyValues
        case .dateInJSON: .dateInJSON
        case .dataInJSON: .dataInJSON
        case .uidInJSON: .uidInJSON
        case .nonFiniteRealInJSON: .nonFiniteReal
        case .unwritableDate: .unwritableDate
        case .unwritableCharacter: .unwritableCharacter
        }
    }

    var message: String {
        switch self {
        case .emptyInput: "The input is empty"
        case .notBinary: "Not a binary property list (no bplist header)"
        case .unsupportedBinaryVersion(let version):
            "Binary property list version \"\(version)\" is not supported (only bplist00)"
        case .unsupportedType(let what): "Binary property list values of type \(what) are not supported"
        case .unsupportedFeature(let text), .unsupportedEncoding(let text), .readOnlyFormat(let text),
            .binaryStructure(let text), .syntax(let text), .invalidEncoding(let text), .unpairedSurrogate(let text),
            .invalidEscape(let text), .disallowedCodePoint(let text), .invalidCharacter(let text),
            .invalidNumber(let text),
            .numberOutOfRange(let text), .invalidDate(let text), .invalidData(let text), .tooManyObjects(let text, _):
            text
        case .referenceCycle(let object): "Object \(object) contains itself (a reference cycle)"
        case .nonStringKey(let object): "A dictionary key (object \(object)) is not a string"
        case .unterminated(let what): "Found unterminated \(what)"
        case .unclosedElement(let tag, let openedAt):
            "Found no closing tag for <\(tag)>" + (openedAt.map { " opened \($0)" } ?? "")
        case .missingValue(let key): "Value missing for key \"\(TextSnippet.of(key))\" inside <dict>"
        case .nonFiniteDate(let seconds, _): "A date is \(seconds), not a finite time"
        case .nullValue: "Found null, which has no property-list form"
        case .tooDeep(let limit, let containers): "Too many nested \(containers) (the limit is \(limit))"
        case .expansionBudget(let limit):
            "The property list expands to more than \(limit) values through shared references"
        case .tooManyValues(let limit): "Too many values to write (the limit is \(limit))"
        case .dateInJSON: "A date cannot be written as JSON (lossyDatesAndData writes it as a string)"
        case .dataInJSON: "Data cannot be written as JSON (lossyDatesAndData writes it as base64)"
        case .uidInJSON: "A UID cannot be written as JSON (lossyDatesAndData writes it as {\"CF$UID\": n})"
        case .nonFiniteRealInJSON(let real): "A real that is not finite (\(real)) cannot be written as JSON"
        case .unwritableDate(let format, let finite):
            finite
                ? "A date outside years -9999…9999 cannot be written as \(format)"
                : "A date that is not finite cannot be written as \(format)"
        case .unwritableCharacter(let scalar, let format):
            "A string holds U+\(TextSnippet.hex4(scalar)), which \(format) cannot hold"
        }
    }
}

extension PropertyListError {
    /// The public error for `failure` found at `location`: the one place codes, reasons and messages meet.
    init(_ failure: CodecFailure, at location: Location? = nil) {
        self.init(code: failure.code, reason: failure.reason, message: failure.message, location: location)
    }
}
