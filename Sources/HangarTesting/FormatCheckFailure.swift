import Hangar

/// The name of a rule a format history breaks, as CI logs and scripts match it: `KEY_REMOVED`, `WRITER_CHANGED`.
///
/// The names are part of the API: a rule is never renamed. New rules may be added.
public struct FormatRule: Sendable, Hashable, CustomStringConvertible {
    /// The rule's name, upper case with underscores.
    public let name: String

    private init(_ name: String) { self.name = name }

    public var description: String { name }

    public static func == (lhs: FormatRule, rhs: FormatRule) -> Bool { lhs.name.hasSameBytes(as: rhs.name) }
    public func hash(into hasher: inout Hasher) { hasher.combine(ExactString(name)) }

    /// A frozen `.plist` or `.xml` is not what the manifest's checksum says, or is not in the manifest.
    public static let frozenFileChanged = FormatRule("FROZEN_FILE_CHANGED")
    /// A file the manifest lists is not in the folder.
    public static let frozenFileMissing = FormatRule("FROZEN_FILE_MISSING")
    /// A frozen document no longer loads as its expectation under `expected/` says.
    public static let expectationChanged = FormatRule("EXPECTATION_CHANGED")
    /// A frozen document has no expectation under `expected/`.
    public static let expectationMissing = FormatRule("EXPECTATION_MISSING")
    /// Today's samples do not encode to the current version's frozen files.
    public static let writerChanged = FormatRule("WRITER_CHANGED")
    /// Today's reader asks for another shape than the current version froze.
    public static let shapeChangedWithoutVersion = FormatRule("SHAPE_CHANGED_WITHOUT_VERSION")
    /// A minor removed a key its major's earlier minor read.
    public static let keyRemoved = FormatRule("KEY_REMOVED")
    /// A minor reads a key as another kind of value.
    public static let typeChanged = FormatRule("TYPE_CHANGED")
    /// A minor requires a key that older documents of its major may lack.
    public static let optionalToRequired = FormatRule("OPTIONAL_TO_REQUIRED")
    /// A minor no longer allows a class tag, and no alias reads it.
    public static let tagRemovedWithoutAlias = FormatRule("TAG_REMOVED_WITHOUT_ALIAS")
    /// A generated old document crashed a check, or loaded but did not survive its own save.
    public static let generatedDocumentFailed = FormatRule("GENERATED_DOCUMENT_FAILED")
    /// A key of a newer minor was lost when today's code saved the document.
    public static let unknownKeyDropped = FormatRule("UNKNOWN_KEY_DROPPED")
    /// The current version has no frozen folder.
    public static let notFrozen = FormatRule("NOT_FROZEN")
    /// A freeze would change a version already frozen.
    public static let frozenVersion = FormatRule("FROZEN_VERSION")
    /// The manifest (`format.plist`) or a file it names cannot be used as it is: unreadable, malformed, a name
    /// outside the folder, a count past the kit's bounds.
    public static let manifestInvalid = FormatRule("MANIFEST_INVALID")
}

/// One thing wrong with a format history: which rule, at which version, where, and what.
public struct FormatProblem: Sendable, Hashable, CustomStringConvertible {
    /// The rule broken.
    public let rule: FormatRule
    /// The version concerned (`2.0`), or `-` for the history as a whole.
    public let version: String
    /// The file (relative to the history's folder) or key path concerned.
    public let path: String
    /// What is wrong, and what to do about it.
    public let message: String

    /// A problem.
    public init(_ rule: FormatRule, version: String, path: String, _ message: String) {
        self.rule = rule
        self.version = version
        self.path = path.isEmpty ? "-" : path
        self.message = message
    }

    /// `RULE VERSION FILE-OR-PATH: message`, on one line.
    public var description: String {
        "\(rule) \(version) \(path): \(Self.oneLine(message))"
    }

    static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
            .joined(separator: " ")
    }

    public static func == (lhs: FormatProblem, rhs: FormatProblem) -> Bool {
        lhs.rule == rhs.rule && lhs.version.hasSameBytes(as: rhs.version) && lhs.path.hasSameBytes(as: rhs.path)
            && lhs.message.hasSameBytes(as: rhs.message)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rule)
        for part in [version, path, message] { hasher.combine(ExactString(part)) }
    }
}

/// What ``FormatHistory/verify()`` throws: every problem it found, not only the first.
///
/// Its description is one line per problem, `RULE VERSION FILE-OR-PATH: message`, so a CI log can be grepped by
/// rule name.
public struct FormatCheckFailure: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order the checks found them.
    public let problems: [FormatProblem]
    /// The seed the generated documents were made from, for `HANGAR_FORMATS_SEED` to repeat the run.
    public let seed: UInt64?

    /// A failure listing `problems`.
    public init(problems: [FormatProblem], seed: UInt64? = nil) {
        self.problems = problems
        self.seed = seed
    }

    /// Whether some problem breaks `rule`.
    public func contains(_ rule: FormatRule) -> Bool { problems.contains { $0.rule == rule } }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
