/// Why a document could not be opened, upgraded or described.
///
/// Match on ``kind``; ``description`` names the document (when known), both versions and the step.
public struct DocumentError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New kinds may be added, so `switch` on it with a `default`; match one directly with
    /// `catch DocumentError.Kind.newerMajor`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The top level is not a dictionary.
        public static let notAnEnvelope = Kind("notAnEnvelope")
        /// `majorVersion` (or `minorVersion`, when it is required) is absent.
        public static let missingVersion = Kind("missingVersion")
        /// A version key holds something other than a non-negative integer.
        public static let invalidVersion = Kind("invalidVersion")
        /// The document's major is newer than this code knows. It is refused and left as it is.
        public static let newerMajor = Kind("newerMajor")
        /// The document's major is older than the oldest this code can still migrate.
        public static let unsupportedOldMajor = Kind("unsupportedOldMajor")
        /// A migration step threw.
        public static let migrationFailed = Kind("migrationFailed")
        /// The format's declaration is inconsistent (a missing or duplicate migration step).
        public static let invalidFormat = Kind("invalidFormat")

        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// What went wrong, in words.
    public let message: String
    /// The version the document declared, when it was readable.
    public let storedVersion: DocumentVersion?
    /// The document's name, when the caller gave one (the store gives `collection/key`).
    public let document: String?
    /// The error a migration step threw, for ``Kind/migrationFailed``.
    public let underlying: (any Error)?

    init(
        _ kind: Kind, _ message: String, storedVersion: DocumentVersion? = nil, document: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.storedVersion = storedVersion
        self.document = document
        self.underlying = underlying
    }

    /// The message and the underlying error, without the document's name.
    public var reason: String {
        guard let underlying else { return message }
        return "\(message): \(underlying)"
    }

    public var description: String {
        document.map { "\($0): \(reason)" } ?? reason
    }
}

extension DocumentError.Kind {
    /// `catch DocumentError.Kind.newerMajor`: matches a `DocumentError` of this kind, as the store's kinds do.
    public static func ~= (kind: Self, error: any Error) -> Bool {
        (error as? DocumentError)?.kind == kind
    }
}
