// Byte-level string and data helpers over contiguous storage. Like ByteReader.swift, one of the few files
// allowed unsafe memory access (Internal/ only): each use reads within the buffer it was handed.

/// Byte-exact comparison, ordering and hashing of strings' UTF-8 and of raw bytes.
enum UTF8Bytes {
    /// Whether two strings have the same UTF-8 bytes (the same Unicode scalars).
    static func equal(_ a: String, _ b: String) -> Bool {
        let left = a.utf8
        let right = b.utf8
        guard left.count == right.count else { return false }
        let fast = left.withContiguousStorageIfAvailable { x in
            right.withContiguousStorageIfAvailable { y in
                memoryEqual(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
            }
        }
        if let result = fast ?? nil { return result }
        return left.elementsEqual(right)
    }

    /// The three-way order of the UTF-8 bytes (code point order: negative, zero when equal, positive), and
    /// whether both bytes at the first difference are below `0xEE`, where code point order and UTF-16 order agree.
    static func compare(_ a: String, _ b: String) -> (order: Int, agreesWithUTF16: Bool) {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compareBytes(x, y) }
        }
        if let result = fast ?? nil { return result }
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return (0, true)
            case (nil, _): return (-1, true)
            case (_, nil): return (1, true)
            case (let x?, let y?) where x != y: return (x < y ? -1 : 1, x < 0xEE && y < 0xEE)
            default: continue
            }
        }
    }

    private static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>)
        -> (order: Int, agreesWithUTF16: Bool)
    {
        let common = min(x.count, y.count)
        var index = 0
        let rawX = UnsafeRawBufferPointer(x)
        let rawY = UnsafeRawBufferPointer(y)
        // Eight bytes at a time while equal; big-endian words order like their bytes.
        while index + 8 <= common {
            let wordX = rawX.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let wordY = rawY.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if wordX != wordY { break }
            index += 8
        }
        while index < common {
            let byteX = x[index]
            let byteY = y[index]
            if byteX != byteY { return (byteX < byteY ? -1 : 1, byteX < 0xEE && byteY < 0xEE) }
            index += 1
        }
        return (x.count == y.count ? 0 : (x.count < y.count ? -1 : 1), true)
    }

    /// Hashes the exact UTF-8 bytes into a `Hasher`, consistent with `equal`.
    static func hash(_ string: String, into hasher: inout Hasher) {
        let utf8 = string.utf8
        let done: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if done == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        hasher.combine(utf8.count)
    }

    /// Hashes raw bytes in one call (an array's own `hash(into:)` combines element by element).
    static func hash(_ bytes: [UInt8], into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(bytes.count)
    }

    /// A fast seeded 64-bit hash of a string's UTF-8 bytes (for the writers' uniquing tables).
    static func fastHash(_ string: String, seed: UInt64) -> UInt64 {
        var copy = string
        return copy.withUTF8 { fastHash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// A fast seeded 64-bit hash of bytes.
    static func fastHash(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        bytes.withUnsafeBytes { fastHash($0, seed: seed) }
    }

    /// wyhash-style mixing: 8 bytes a round through a 64×64→128-bit multiply.
    static func fastHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var state = seed ^ (UInt64(bytes.count) &* 0xA076_1D64_78BD_642F)
        var index = 0
        while index + 8 <= bytes.count {
            state = mix(state ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self), 0xE703_7ED1_A0B4_28DB)
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        return mix(state ^ tail ^ 0x8EBC_6AF0_9C88_C6E3, 0x5899_65CC_7537_4CC3)
    }

    /// The high and low halves of `a × b`, folded.
    @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    /// What XML text needs to hold a string.
    enum XMLText: Equatable {
        /// Written as it is.
        case plain
        /// Holds `&`, `<`, `>` or a carriage return, which must be escaped.
        case needsEscaping
        /// Holds a character XML 1.0 cannot hold at all: a C0 control other than tab, LF, CR, or U+FFFE/U+FFFF.
        case forbidden(UInt32)
    }

    /// Scans a string's UTF-8 once for what XML text needs.
    static func scanXMLText(_ string: String) -> XMLText {
        var copy = string
        return copy.withUTF8 { bytes in
            var result = XMLText.plain
            var index = 0
            let count = bytes.count
            let raw = UnsafeRawBufferPointer(bytes)
            while index < count {
                // Eight bytes at a time past plain text: no control, `&`, `<`, `>` or 0xEF among them.
                while index + 8 <= count,
                    !mayNeedXMLAttention(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                {
                    index += 8
                }
                guard index < count else { break }
                let byte = bytes[index]
                if byte < 0x20 {
                    if byte == 0x0D {
                        result = .needsEscaping
                    } else if byte != 0x09 && byte != 0x0A {
                        return .forbidden(UInt32(byte))
                    }
                } else if byte == 0x26 || byte == 0x3C || byte == 0x3E {
                    result = .needsEscaping
                } else if byte == 0xEF, index + 2 < count, bytes[index + 1] == 0xBF,
                    bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF
                {
                    return .forbidden(bytes[index + 2] == 0xBE ? 0xFFFE : 0xFFFF)
                }
                index += 1
            }
            return result
        }
    }

    /// Whether any of the eight bytes in `word` is a C0 control, `&`, `<`, `>` or `0xEF`: the bytes XML text
    /// must look at (see `ByteReader.skipPlainXMLText` for the technique).
    @inline(__always)
    static func mayNeedXMLAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let ampersand = word ^ (ones &* 0x26)
        let lessThan = word ^ (ones &* 0x3C)
        let greaterThan = word ^ (ones &* 0x3E)
        let lead = word ^ (ones &* 0xEF)
        let found =
            ((word &- ones &* 0x20) & ~word) | ((ampersand &- ones) & ~ampersand) | ((lessThan &- ones) & ~lessThan)
            | ((greaterThan &- ones) & ~greaterThan) | ((lead &- ones) & ~lead)
        return found & 0x8080_8080_8080_8080 != 0
    }

    /// Equal-length buffers compared eight bytes at a time.
    static func memoryEqual(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = x.count
        while index + 8 <= count {
            if x.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != y.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                return false
            }
            index += 8
        }
        while index < count {
            if x[index] != y[index] { return false }
            index += 1
        }
        return true
    }
}
