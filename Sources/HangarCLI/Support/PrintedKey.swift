import Foundation
import PropertyList

/// How the `db` verbs print a document key in their line output (`ls`, `find`): as it is when it reads back
/// unambiguously, quoted with escapes when it would not.
///
/// A key is printed as it is unless it is empty, starts with `"`, or holds whitespace, a control character, a
/// backslash, or is not in Unicode's composed form (NFC), so that two keys that look alike (`caf\u{E9}` and
/// its decomposed twin `cafe\u{301}`) never print alike. Such a key is printed in double quotes, `"` and `\`
/// escaped with a backslash, `\n`, `\r`, `\t`, and every other scalar outside printable ASCII as `\u{HEX}`:
/// `"cafe\u{301}"`, `"two words"`.
enum PrintedKey {
    /// `key` as a line shows it.
    static func text(_ key: String) -> String {
        isPlain(key) ? key : PropertyList.quoted(key, escapingNonASCII: true)
    }

    private static func isPlain(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first != "\"" else { return false }
        let plainScalars = key.unicodeScalars.allSatisfy { scalar in
            !(scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format || scalar == "\\")
        }
        guard plainScalars else { return false }
        // Composed form, compared by bytes: a decomposed key prints quoted, unlike its composed twin.
        return key.precomposedStringWithCanonicalMapping.utf8.elementsEqual(key.utf8)
    }
}
