import Foundation
import PropertyList

/// How far ``DocumentStore/importFiles(_:into:progress:)`` has got.
public struct ImportProgress: Sendable {
    /// What an import does: reads and checks every file, then saves them all.
    public enum Phase: Sendable {
        /// Reading and checking files.
        case reading
        /// Saving them, in one transaction.
        case saving
    }

    /// The phase.
    public let phase: Phase
    /// Files done in this phase.
    public let done: Int
    /// Files in all.
    public let total: Int
}

/// File names for keys: any key maps to a safe, reversible name.
///
/// Letters, digits, `-`, `_` and `.` (except a leading one) stay; every other byte of the key's UTF-8 is
/// written `%XX`. `"N12345"` → `N12345.plist`; `"a/b"` → `a%2Fb.plist`; `".hidden"` → `%2Ehidden.plist`.
package enum StoreFileNames {
    /// The content key under which ``DocumentStore/exportCollection(_:to:format:sealed:)`` writes a document's key into its
    /// file when the file name cannot give the key back (a key too long for a file name), so that import
    /// files it under that key. Import removes it; saves refuse content that uses it.
    package static let keyMetadataKey = "hangarKey"

    /// The file name (with `.plist`) for `key`.
    package static func fileName(for key: String) -> String {
        var name = ""
        for (index, byte) in key.utf8.enumerated() {
            let safe =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && index > 0)
            if safe {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // A key too long for a file name keeps its first 200 or so characters (all ASCII by now) and gains a
        // digest of the whole key. Such a name does not give the key back: exported files carry their key
        // (``keyMetadataKey``), and import reads it from there.
        if name.utf8.count > 240 {
            // Cut before an escape rather than inside one (every `%` in a name starts an escape).
            let limit = name.utf8.index(name.utf8.startIndex, offsetBy: 200)
            var end = limit
            for back in [2, 1] where name.utf8[name.utf8.index(limit, offsetBy: -back)] == UInt8(ascii: "%") {
                end = name.utf8.index(limit, offsetBy: -back)
            }
            name =
                String(decoding: name.utf8[..<end], as: UTF8.self) + "~" + String(StoreFileNames.digest(key), radix: 16)
        }
        return name + ".plist"
    }

    /// The key a file name stands for: `.plist` dropped, `%XX` decoded.
    package static func key(forFileName fileName: String) -> String {
        var name = Substring(fileName)
        if name.hasSuffix(".plist") { name = name.dropLast(6) }
        var bytes: [UInt8] = []
        var index = name.utf8.startIndex
        let utf8 = name.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let second = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), second < utf8.endIndex,
                let value = UInt8(String(decoding: utf8[first...second], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: second)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// FNV-1a over the key's bytes: stable across runs and platforms.
    static func digest(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
