import Foundation
import PropertyList

/// An exported document kept sealed (`hangar db export --encrypted`): a property list whose only key is
/// ``rootKey``, holding the sealed body and what opens it:
///
/// ```
/// { "hangarSealedDocument": { "keyID": "…", "collection": "…", "key": "…", "revision": 3, "body": <data> } }
/// ```
///
/// `body` is the envelope sealed with the key `keyID` for (collection, key, revision), as the store holds it;
/// importing it opens it with the store's keys and saves the envelope (sealed again for its new revision).
struct SealedFile {
    /// The file's one top-level key: no envelope has it alone (an envelope has `majorVersion`).
    static let rootKey = "hangarSealedDocument"

    let keyID: String
    let context: EncryptionContext
    let body: [UInt8]

    /// The sealed file `plist` is, or nil when it is not one.
    init?(_ plist: PropertyList) {
        guard case .dictionary(let root) = plist, root.count == 1, case .dictionary(let fields)? = root[Self.rootKey],
            case .string(let keyID)? = fields["keyID"], case .string(let collection)? = fields["collection"],
            case .string(let key)? = fields["key"], let revision = fields["revision"]?.integerValue?.exactly(Int.self),
            case .data(let body)? = fields["body"]
        else { return nil }
        self.keyID = keyID
        self.context = EncryptionContext(collection: collection, key: key, revision: revision)
        self.body = body
    }

    /// The envelope the file holds, opened with `encryption`'s keys.
    func open(encryption: (any DocumentEncryption)?, path: String) throws(HangarError) -> PropertyList {
        do {
            let plaintext = try DocumentRules.open(body, keyID: keyID, encryption: encryption, context: context)
            return try PropertyList(binary: plaintext)
        } catch let error as HangarError {
            throw DocumentFiles.fileError(error, path)
        } catch {
            throw DocumentFiles.fileError(
                HangarError(
                    .invalidDocument, "The sealed body is not a property list", collection: context.collection,
                    key: context.key, underlying: error), path)
        }
    }

    /// Writes `stored` as a sealed file: its stored bytes when sealed with the current key, else its plaintext
    /// sealed with the current key.
    static func write(
        _ stored: StoredDocument, encryption: any DocumentEncryption, to path: String, format: PropertyListFormat,
        permissions: UInt16, sweeping: Bool = true
    ) throws(HangarError) {
        let context = EncryptionContext(collection: stored.collection, key: stored.key, revision: stored.revision)
        let body =
            stored.keyID == encryption.currentKeyID
            ? stored.body : try encryption.sealing(try stored.plaintextBody(), context: context)
        let fields: PropertyList.Dictionary = [
            "keyID": .string(encryption.currentKeyID), "collection": .string(stored.collection),
            "key": .string(stored.key), "revision": .integer(PropertyList.Integer(stored.revision)),
            "body": .data(body),
        ]
        let bytes: [UInt8]
        do {
            bytes = try PropertyList.dictionary([rootKey: .dictionary(fields)]).encoded(as: format)
        } catch {
            throw HangarError(
                .invalidDocument, "Cannot write the sealed document as \(format)", collection: stored.collection,
                key: stored.key, underlying: error)
        }
        try DocumentFiles.save(bytes, of: stored, to: path, permissions: permissions, sweeping: sweeping)
    }
}
