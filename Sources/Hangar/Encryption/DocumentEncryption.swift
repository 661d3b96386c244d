/// Encryption at rest: what seals a document's body before an engine stores it and opens it when it is read,
/// set as ``StoreConfiguration/encryption`` (the `HangarEncryption` module's `AESGCMEncryption` is one).
///
/// Only the body (the envelope: every field of the content) is sealed. The collection, key, class tag,
/// index values, revision, version, timestamps and sizes stay readable to anyone who can read the database;
/// the id of the key that sealed each body is stored beside it (`key_id`, NULL for a plaintext body).
///
/// Each body is sealed with its ``EncryptionContext`` (collection, key, revision) as associated data, so a
/// body copied onto another document, key or revision fails to open.
public protocol DocumentEncryption: Sendable {
    /// The id of the key new bodies are sealed with: derived from the key, never the key itself.
    var currentKeyID: String { get }

    /// Whether bodies sealed with the key `keyID` can be opened (the current key or an older one kept for reading).
    func canOpen(keyID: String) -> Bool

    /// `body` sealed with the current key, bound to `context`.
    func seal(_ body: [UInt8], context: EncryptionContext) throws(HangarError) -> [UInt8]

    /// The body `sealed` holds, sealed with the key `keyID` for `context`. Throws ``HangarError/keyUnavailable``
    /// for a key it does not hold, ``HangarError/undecodable`` when the bytes fail authentication (tampered,
    /// or sealed for another document).
    func open(_ sealed: [UInt8], keyID: String, context: EncryptionContext) throws(HangarError) -> [UInt8]
}

/// What a body is sealed for: the document's collection and key and the revision, which a body keeps when it
/// moves into history and while it is re-encrypted (a restore seals the body again for its new revision).
public struct EncryptionContext: Sendable, Hashable {
    /// The collection of the document.
    public let collection: String
    /// The key of the document.
    public let key: String
    /// The revision the body is stored as.
    public let revision: Int

    /// A context for one stored revision of a document.
    public init(collection: String, key: String, revision: Int) {
        self.collection = collection
        self.key = key
        self.revision = revision
    }

    /// The associated data a body is sealed with: a label, then the collection, key and revision, each ended by a
    /// NUL (collections and keys hold no NUL).
    public var associatedData: [UInt8] {
        Array("hangar.document.v1\u{0}\(collection)\u{0}\(key)\u{0}\(revision)\u{0}".utf8)
    }
}

extension HangarError {
    /// The ``Code/keyUnavailable`` error for a body sealed with `keyID`.
    package static func keyUnavailable(_ keyID: String, collection: String?, key: String?) -> HangarError {
        var error = HangarError(
            .keyUnavailable,
            "The document is sealed with key \(keyID), which this store was not given; nothing was read or written",
            collection: collection, key: key)
        error.keyID = keyID
        return error
    }
}

extension DocumentEncryption {
    /// ``seal(_:context:)``, with the document `context` names added to what it throws: the store's way of
    /// calling any encryption, a user's own included.
    package func sealing(_ body: [UInt8], context: EncryptionContext) throws(HangarError) -> [UInt8] {
        do {
            return try seal(body, context: context)
        } catch {
            throw error.naming(collection: context.collection, key: context.key)
        }
    }

    /// ``open(_:keyID:context:)``, with the document `context` names added to what it throws.
    package func opening(_ sealed: [UInt8], keyID: String, context: EncryptionContext) throws(HangarError)
        -> [UInt8]
    {
        do {
            return try open(sealed, keyID: keyID, context: context)
        } catch {
            throw error.naming(collection: context.collection, key: context.key)
        }
    }
}
