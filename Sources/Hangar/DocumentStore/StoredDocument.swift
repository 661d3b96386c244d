public import Foundation
public import PropertyList

/// A document as stored: its bytes and the facts the store keeps beside them.
public struct StoredDocument: Sendable, Hashable {
    /// The collection it is in.
    public let collection: String
    /// Its key in the collection.
    public let key: String
    /// Its revision: 1 for the first save, one more for each save after.
    public let revision: Int
    /// The version its envelope declares.
    public let version: DocumentVersion
    /// The `"class"` tag at the top of its content, if any.
    public let classTag: String?
    /// When its first revision was saved (for a revision from history: when that revision was saved).
    public let createdAt: Date
    /// When this revision was saved.
    public let updatedAt: Date
    /// The bytes as stored: the envelope as a binary property list, or that envelope sealed when ``keyID`` is set
    /// (``plaintextBody()`` opens it).
    public let body: [UInt8]
    /// The id of the key that sealed ``body``, or `nil` for a plaintext body.
    public let keyID: String?
    /// What opens a sealed body: the store's ``StoreConfiguration/encryption`` when it was read.
    let encryption: (any DocumentEncryption)?

    /// A stored document as an engine read it; `encryption` (the store's) opens a body sealed with `keyID`.
    package init(
        collection: String, key: String, revision: Int, version: DocumentVersion, classTag: String?, createdAt: Date,
        updatedAt: Date, body: [UInt8], keyID: String? = nil, encryption: (any DocumentEncryption)? = nil
    ) {
        self.keyID = keyID
        self.encryption = encryption
        self.collection = collection
        self.key = key
        self.revision = revision
        self.version = version
        self.classTag = classTag
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.body = body
    }

    /// The envelope as a binary property list: ``body``, opened when it is sealed. Throws
    /// ``HangarError/keyUnavailable`` when the store was not given the key, ``HangarError/undecodable`` when the
    /// sealed bytes fail authentication.
    public func plaintextBody() throws(HangarError) -> [UInt8] {
        guard let keyID else { return body }
        return try DocumentRules.open(
            body, keyID: keyID, encryption: encryption,
            context: EncryptionContext(collection: collection, key: key, revision: revision))
    }

    /// The envelope, opened (``plaintextBody()``) and decoded.
    public func envelope() throws(HangarError) -> PropertyList {
        let body = try plaintextBody()
        do {
            return try PropertyList(binary: body)
        } catch {
            throw undecodableBody(error)
        }
    }

    /// The error for a plaintext body that is not a binary property list.
    func undecodableBody(_ error: PropertyListError) -> HangarError {
        HangarError(
            .undecodable, "The stored bytes are not a valid binary property list", collection: collection, key: key,
            underlying: error)
    }
}

extension StoredDocument {
    /// Stored documents are equal when their facts and stored bytes are (whatever opens them).
    public static func == (lhs: StoredDocument, rhs: StoredDocument) -> Bool {
        lhs.collection == rhs.collection && lhs.key == rhs.key && lhs.revision == rhs.revision
            && lhs.version == rhs.version && lhs.classTag == rhs.classTag && lhs.createdAt == rhs.createdAt
            && lhs.updatedAt == rhs.updatedAt && lhs.body == rhs.body && lhs.keyID == rhs.keyID
    }

    /// Hashes the facts and stored bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(collection)
        hasher.combine(key)
        hasher.combine(revision)
        hasher.combine(body)
        hasher.combine(keyID)
    }
}

/// A document read as a model, with its store facts.
public struct Loaded<Document> {
    /// The model.
    public var value: Document
    /// The collection it is in.
    public let collection: String
    /// Its key.
    public let key: String
    /// The revision read; pass it as `expectedRevision` to save only if nobody changed it since.
    public let revision: Int
    /// The version the stored document declared, before any migration.
    public let storedVersion: DocumentVersion
    /// When the document was first saved.
    public let createdAt: Date
    /// When the revision read was saved.
    public let updatedAt: Date

    /// Whether the stored document is older than the current format and was upgraded in memory
    /// (the stored bytes are unchanged until the document is saved again).
    public var wasMigrated: Bool
}

extension Loaded: Sendable where Document: Sendable {}

/// A document a bulk read or upgrade could not decode: reported, never skipped silently, never changed.
public struct QuarantinedDocument: Sendable, CustomStringConvertible {
    /// Its collection.
    public let collection: String
    /// Its key.
    public let key: String
    /// Why it could not be read.
    public let error: HangarError

    public var description: String { error.description }
}

/// The documents of a collection read as models, and those that could not be.
public struct DocumentBatch<Document> {
    /// The documents read, in key order.
    public var loaded: [Loaded<Document>]
    /// The documents that could not be read, with why.
    public var quarantined: [QuarantinedDocument]
}

extension DocumentBatch: Sendable where Document: Sendable {}

/// One kept revision of a document.
public struct RevisionInfo: Sendable, Hashable {
    /// The revision number.
    public let revision: Int
    /// The version its envelope declared.
    public let version: DocumentVersion
    /// Its class tag.
    public let classTag: String?
    /// When it was saved.
    public let savedAt: Date
    /// Whether it is the document's current revision.
    public let isCurrent: Bool

    /// A revision as an engine read it.
    package init(revision: Int, version: DocumentVersion, classTag: String?, savedAt: Date, isCurrent: Bool) {
        self.revision = revision
        self.version = version
        self.classTag = classTag
        self.savedAt = savedAt
        self.isCurrent = isCurrent
    }
}

/// The order of keys in a listing.
public enum KeyOrdering: Sendable {
    /// Ascending by key (byte order of UTF-8).
    case ascending
    /// Descending by key.
    case descending
    /// Most recently saved first.
    case recentlyUpdated
}
