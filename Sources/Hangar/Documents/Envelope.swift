public import PropertyList

// The envelope: a document's content keys plus `majorVersion` and `minorVersion`, in one dictionary. A format
// seals content into an envelope and reads the version an envelope declares; `DocumentCoding` finds what a model
// does not write back. Migrations (Migrations.swift) and `DocumentFormat/open(_:name:observer:)` work on what is inside.

extension DocumentFormat {
    /// The key of the major version in every envelope.
    public static let majorKey = "majorVersion"
    /// The key of the minor version in every envelope.
    public static let minorKey = "minorVersion"

    /// The version a document declares, checked but not judged (a newer major is returned, not refused).
    public func version(of document: PropertyList) throws(HangarError) -> DocumentVersion {
        try Self.envelopeVersion(of: document, defaultMinor: defaultMinor)
    }

    /// The version any envelope declares, with no format to judge it by: a dictionary with an integer
    /// `majorVersion` and (unless `defaultMinor` is given) an integer `minorVersion`.
    public static func envelopeVersion(of document: PropertyList, defaultMinor: Int? = nil) throws(HangarError)
        -> DocumentVersion
    {
        guard case .dictionary(let envelope) = document else {
            throw HangarError(.notAnEnvelope, "The document's top level is \(document.kindName), not a dictionary")
        }
        let major = try versionNumber(envelope[majorKey], key: majorKey, default: nil)
        let minor = try versionNumber(envelope[minorKey], key: minorKey, default: defaultMinor)
        return DocumentVersion(major: major, minor: minor)
    }

    /// The envelope for `content` at `version` (the current one by default).
    public func seal(_ content: PropertyList.Dictionary, version: DocumentVersion? = nil) -> PropertyList {
        let version = version ?? current
        var envelope = content
        envelope[Self.majorKey] = .integer(.init(version.major))
        envelope[Self.minorKey] = .integer(.init(version.minor))
        return .dictionary(envelope)
    }

    private static func versionNumber(_ value: PropertyList?, key: String, default fallback: Int?) throws(HangarError)
        -> Int
    {
        guard let value else {
            if let fallback { return fallback }
            throw HangarError(.missingVersion, "The document has no \(key)")
        }
        guard case .integer(let integer) = value, let number = integer.exactly(Int.self), number >= 0 else {
            throw HangarError(
                .invalidVersion, "\(key) is \(value.kindName) \(describe(value)), not a non-negative integer")
        }
        return number
    }

    private static func describe(_ value: PropertyList) -> String {
        switch value {
        case .string(let string): "\"\(string)\""
        case .integer(let integer): integer.description
        case .real(let real): real.description
        case .boolean(let flag): flag.description
        default: ""
        }
    }
}

/// What a versioned document's model does with content it reads, through a class registry.
enum DocumentCoding {
    /// The content keys of `content` that the model does not write back after reading it: the keys a newer
    /// minor added, which an older reader must keep.
    static func unknownKeys<Document: VersionedDocument>(
        of content: PropertyList.Dictionary,
        as _: Document.Type,
        registry: ClassRegistry
    ) throws(HangarError) -> PropertyList.Dictionary {
        let model = try registry.decode(Document.self, from: .dictionary(content))
        let rewritten = registry.encode(model).dictionaryValue ?? [:]
        return content.filter { rewritten[$0.key] == nil }
    }
}
