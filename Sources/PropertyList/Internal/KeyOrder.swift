/// The order of dictionary keys: by UTF-16 code unit, as Apple's `CFStringCompare` does, so output is
/// deterministic and matches `plutil`. Two keys are the same only when their Unicode scalars are.
enum KeyOrder {
    /// Negative when `a` sorts before `b`, zero when they hold the same scalars, positive otherwise.
    ///
    /// UTF-8 byte order is code point order, which differs from UTF-16 order only between a scalar in
    /// U+E000…U+FFFF and one above U+FFFF; compare bytes and fall back to UTF-16 only where that can matter.
    @inline(__always)
    static func compare(_ a: String, _ b: String) -> Int {
        let (order, agrees) = UTF8Bytes.compare(a, b)
        if agrees { return order }
        return a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : 1
    }

    /// Whether `a` sorts before `b` by UTF-16 code units.
    static func precedes(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }
}
