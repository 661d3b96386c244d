/// The order every writer puts dictionary keys in: by UTF-16 code unit, as Apple's `CFStringCompare` does,
/// so output is deterministic and matches `plutil`.
enum KeyOrder {
    /// The entries of `dictionary`, keys sorted.
    static func sortedEntries(_ dictionary: [String: PropertyList]) -> [(key: String, value: PropertyList)] {
        dictionary.sorted { precedes($0.key, $1.key) }
    }

    /// Whether `a` sorts before `b` by UTF-16 code units.
    ///
    /// UTF-8 byte order is code point order, which differs from UTF-16 order only between a scalar in
    /// U+E000…U+FFFF and one above U+FFFF; compare bytes and fall back to UTF-16 only where that can matter.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (ordered, agrees) = UTF8Bytes.compare(a, b)
        return agrees ? ordered : a.utf16.lexicographicallyPrecedes(b.utf16)
    }
}
