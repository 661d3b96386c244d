import Crypto
import Foundation
public import Hangar

/// Encryption at rest with AES-256-GCM (swift-crypto): a current key that seals every body saved, and older
/// keys kept to open bodies they sealed until ``DocumentStore/rekey(batchSize:progress:)`` has sealed them again.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.encryption = try AESGCMEncryption(key: currentKeyBytes, oldKeys: [previousKeyBytes])
/// let store = try Store(path: path, configuration: configuration)
/// ```
///
/// Each body is sealed with a fresh random 96-bit nonce, and with the document's collection, key and revision
/// as associated data: the stored bytes are the nonce, the ciphertext and the 16-byte tag (28 bytes more than
/// the plaintext). A key's id (``keyID(of:)``) is derived from the key by HMAC-SHA-256; it names the key, and
/// tells nothing of it.
public struct AESGCMEncryption: DocumentEncryption {
    /// The size of a key, in bytes (AES-256).
    public static let keySize = 32

    /// The id of the key that seals new bodies.
    public let currentKeyID: String
    private let currentKey: SealingKey
    /// Every key held, current and older, by id.
    private let keys: [String: SealingKey]

    /// Seals with `key` (32 bytes) and opens bodies sealed with it or with any of `oldKeys`.
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` for a key that is not 32 bytes.
    public init(key: [UInt8], oldKeys: [[UInt8]] = []) throws(HangarError) {
        let current = try Self.symmetricKey(key)
        currentKey = SealingKey(key: current)
        currentKeyID = Self.keyID(of: current)
        var keys: [String: SealingKey] = [:]
        for old in oldKeys {
            let symmetric = try Self.symmetricKey(old)
            keys[Self.keyID(of: symmetric)] = SealingKey(key: symmetric)
        }
        keys[currentKeyID] = currentKey
        self.keys = keys
    }

    /// Reads a key file: exactly 32 raw bytes. Throws ``HangarError/invalidConfiguration`` for another size and
    /// ``HangarError/io`` when it cannot be read.
    public static func readKeyFile(_ path: String) throws(HangarError) -> [UInt8] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw HangarError(.io, "Cannot read the key file \(path)", underlying: error)
        }
        guard data.count == keySize else {
            throw HangarError(
                .invalidConfiguration,
                "The key file \(path) holds \(data.count) bytes; a key file holds exactly \(keySize) raw bytes")
        }
        return Array(data)
    }

    /// The id of a key: the first 8 bytes of HMAC-SHA-256(key, "hangar.key-id.v1"), in hexadecimal (16 characters).
    /// Throws ``HangarError/invalidConfiguration`` for a key that is not 32 bytes.
    public static func keyID(of key: [UInt8]) throws(HangarError) -> String {
        keyID(of: try symmetricKey(key))
    }

    /// Whether bodies sealed with `keyID` can be opened.
    public func canOpen(keyID: String) -> Bool {
        keys[keyID] != nil
    }

    /// `body` sealed with the current key for `context`: nonce, ciphertext, tag.
    public func seal(_ body: [UInt8], context: EncryptionContext) throws(HangarError) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(body, using: currentKey.key, authenticating: context.associatedData)
            guard let combined = box.combined else {
                throw HangarError(.invalidConfiguration, "AES-GCM gave no combined form for a 12-byte nonce")
            }
            return Array(combined)
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(
                .invalidDocument, "The document could not be sealed", collection: context.collection,
                key: context.key, underlying: error)
        }
    }

    /// The body `sealed` holds, if it authenticates for `context` under the key `keyID`.
    public func open(_ sealed: [UInt8], keyID: String, context: EncryptionContext) throws(HangarError) -> [UInt8] {
        guard let key = keys[keyID] else {
            throw HangarError.keyUnavailable(keyID, collection: context.collection, key: context.key)
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return Array(try AES.GCM.open(box, using: key.key, authenticating: context.associatedData))
        } catch {
            throw HangarError(
                .undecodable,
                "The sealed body failed authentication (changed, or sealed for another document); it was not read",
                collection: context.collection, key: context.key, underlying: error)
        }
    }

    private static func symmetricKey(_ bytes: [UInt8]) throws(HangarError) -> SymmetricKey {
        guard bytes.count == keySize else {
            throw HangarError(
                .invalidConfiguration, "An encryption key is \(keySize) bytes; this one is \(bytes.count)")
        }
        return SymmetricKey(data: bytes)
    }

    private static func keyID(of key: SymmetricKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("hangar.key-id.v1".utf8), using: key)
        return code.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// A key, shared between tasks: swift-crypto's `SymmetricKey` is not marked `Sendable` on every platform, but it
/// is an immutable value (its bytes are never changed after it is made), so reading it from several tasks at
/// once is safe.
private struct SealingKey: @unchecked Sendable {
    let key: SymmetricKey
}

extension AESGCMEncryption: CustomStringConvertible, CustomDebugStringConvertible {
    /// The current key's id and how many keys are held; never a key.
    public var description: String { "AESGCMEncryption(current key \(currentKeyID), \(keys.count) keys)" }
    /// As ``description``.
    public var debugDescription: String { description }
}
