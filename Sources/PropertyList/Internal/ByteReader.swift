// One of the few files (all in Internal/) that touch unsafe memory. Scanners work in offsets into a `ByteReader`
// and call these accessors only after they have checked the range (see the `check` helpers' callers);
// debug builds re-check every access.

/// Read-only, bounds-checked-in-debug access to the input bytes, valid inside `withByteReader`.
struct ByteReader {
    private let base: UnsafeRawBufferPointer

    /// The number of bytes.
    var count: Int { base.count }

    fileprivate init(_ base: UnsafeRawBufferPointer) {
        self.base = base
    }

    /// The byte at `offset`. The caller has checked `offset < count`.
    @inline(__always)
    subscript(offset: Int) -> UInt8 {
        assert(offset >= 0 && offset < base.count, "ByteReader: offset \(offset) out of range")
        return base[offset]
    }

    /// A big-endian unsigned integer of `width` (1…8) bytes at `offset`. The caller has checked the range.
    @inline(__always)
    func bigEndianUInt(at offset: Int, width: Int) -> UInt64 {
        assert(width >= 1 && width <= 8 && offset >= 0 && offset + width <= base.count)
        switch width {
        case 1:
            return UInt64(base[offset])
        case 2:
            return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4:
            return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8:
            return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for index in offset..<(offset + width) { value = value << 8 | UInt64(base[index]) }
            return value
        }
    }

    /// The 8 bytes at `offset` as a little-endian integer (the first byte lowest). The caller has checked the range.
    @inline(__always)
    func littleEndianUInt64(at offset: Int) -> UInt64 {
        assert(offset >= 0 && offset + 8 <= base.count)
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Whether the `count` bytes at `offset` are the UTF-8 of `string`. The caller has checked the range.
    func matches(_ string: String, at offset: Int, count: Int) -> Bool {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == count
                && UTF8Bytes.memoryEqual(
                    UnsafeRawBufferPointer(utf8), UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]))
        }
    }

    /// A copy of `count` bytes at `offset`. The caller has checked the range.
    func bytes(at offset: Int, count: Int) -> [UInt8] {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        return Array(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]))
    }

    /// Calls `body` with the `count` bytes at `offset`. The caller has checked the range.
    func withBytes<Result>(at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        return body(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]))
    }

    /// Appends `count` bytes at `offset` to `array` without an intermediate copy (text readers gather
    /// unescaped runs this way). The caller has checked the range.
    func append(from offset: Int, count: Int, to array: inout [UInt8]) {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        array.append(contentsOf: UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]))
    }

    /// Whether the `count` bytes at `first` equal those at `second`. The caller has checked both ranges.
    func regionsEqual(_ first: Int, _ second: Int, count: Int) -> Bool {
        assert(first >= 0 && second >= 0 && count >= 0 && first + count <= base.count && second + count <= base.count)
        return UTF8Bytes.memoryEqual(
            UnsafeRawBufferPointer(rebasing: base[first..<(first + count)]),
            UnsafeRawBufferPointer(rebasing: base[second..<(second + count)]))
    }

    /// A fast hash of the `count` bytes at `offset`. The caller has checked the range.
    func hash(at offset: Int, count: Int) -> UInt64 {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        return UTF8Bytes.fastHash(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]), seed: 0x243F_6A88)
    }

    /// Whether the bytes at `offset` start with `prefix`. Checks the range itself.
    func matches(_ prefix: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + prefix.count <= base.count else { return false }
        for (index, byte) in prefix.enumerated() where base[offset + index] != byte { return false }
        return true
    }

    /// Whether the bytes at `offset` start with the UTF-8 of `text`. Checks the range itself.
    @inline(__always)
    func matches(_ text: StaticString, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, count <= base.count - offset, let start = base.baseAddress else { return false }
        return UTF8Bytes.memoryEqual(
            UnsafeRawBufferPointer(start: start + offset, count: count),
            UnsafeRawBufferPointer(start: text.utf8Start, count: count))
    }

    /// The offset of the first byte from `offset` that XML text must look at, or `count`: `&`, `<`, or `0xEF`
    /// (the lead byte of U+FFFE/U+FFFF). Every other byte is plain content. Eight bytes are looked at a time (a
    /// byte equal to `b` is a zero byte of `w ^ b·0x01…`, and a zero byte sets its high bit in
    /// `(w − 0x01…) & ~w & 0x80…`).
    /// Every byte passed over is OR-ed into `seen`, so the caller knows without another pass whether the text
    /// was all ASCII.
    @inline(__always)
    func skipPlainXMLText(from offset: Int, seen: inout UInt64) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var index = offset
        let count = base.count
        while index + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let ampersand = word ^ (ones &* 0x26)
            let lessThan = word ^ (ones &* 0x3C)
            let lead = word ^ (ones &* 0xEF)
            let found = ((ampersand &- ones) & ~ampersand) | ((lessThan &- ones) & ~lessThan) | ((lead &- ones) & ~lead)
            if found & 0x8080_8080_8080_8080 != 0 { break }
            seen |= word
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte == 0x26 || byte == 0x3C || byte == 0xEF { return index }
            seen |= UInt64(byte)
            index += 1
        }
        return count
    }

    /// The offset of the first byte equal to `byte` in `offset..<end`, or `nil`. Eight bytes are looked at a time
    /// (see ``skipPlainXMLText(from:seen:)``).
    func firstIndex(of byte: UInt8, from offset: Int, to end: Int) -> Int? {
        assert(offset >= 0 && end <= base.count)
        var index = offset
        let ones: UInt64 = 0x0101_0101_0101_0101
        let pattern = ones &* UInt64(byte)
        while index + 8 <= end {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ pattern
            if (word &- ones) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < end {
            if base[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// The ASCII string of `count` bytes at `offset`, or `nil` if a byte is 0x80 or above.
    /// The caller has checked the range.
    func asciiString(at offset: Int, count: Int) -> String? {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        let slice = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)])
        var combined: UInt8 = 0
        for byte in slice { combined |= byte }
        guard combined < 0x80 else { return nil }
        return KnownUTF8.string(slice, isASCII: true)
    }

    /// The string of `count` bytes of ISO-8859-1 at `offset`: each byte is the code point of its value.
    /// The caller has checked the range.
    func latin1String(at offset: Int, count: Int) -> String {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        var string = ""
        string.unicodeScalars.reserveCapacity(count)
        for index in offset..<(offset + count) { string.unicodeScalars.append(Unicode.Scalar(base[index])) }
        return string
    }

    /// The string of `count` bytes of UTF-8 at `offset`, or `nil` if they are not valid UTF-8.
    /// The caller has checked the range.
    func utf8String(at offset: Int, count: Int) -> String? {
        assert(offset >= 0 && count >= 0 && offset + count <= base.count)
        return validatedUTF8(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)]))
    }

    /// The string of `units` big-endian UTF-16 code units at `offset`, or `nil` when a surrogate is unpaired.
    /// The caller has checked that `2 * units` bytes are in range.
    ///
    /// One pass transcodes into a temporary buffer of the most UTF-8 the units can take (three bytes a unit; on the
    /// stack for short strings), finding every unpaired surrogate as it goes; the string is then made from that at
    /// its exact length (allocating three bytes a unit for the string itself kept that slack in every string for its
    /// life: a third of a decoded tree's memory went there). Runs of ASCII go eight units (two 8-byte loads) at a time.
    func utf16BigEndianString(at offset: Int, units: Int) -> String? {
        assert(offset >= 0 && units >= 0 && offset + 2 * units <= base.count)
        let source = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + 2 * units)])
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(3 * units, 1)) { buffer in
            guard let length = UTF16BigEndian.transcode(source, units: units, into: buffer) else { return nil }
            // Valid UTF-8 by construction: copied without a second check.
            return KnownUTF8.string(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[0..<length])))
        }
    }
}

/// Big-endian UTF-16 to UTF-8, for the binary reader's `6n` strings.
enum UTF16BigEndian {
    /// Four ASCII units in big-endian are `00 xx 00 xx 00 xx 00 xx`, every xx below 0x80.
    @inline(__always)
    static func isASCII(_ word: UInt64) -> Bool {
        word & asciiMask == 0
    }

    /// The bits of a little-endian load of four big-endian units that are zero when every unit is ASCII.
    @inline(__always)
    static var asciiMask: UInt64 { 0x80FF_80FF_80FF_80FF }

    @inline(__always)
    static func unit(_ source: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
        UInt32(UInt16(bigEndian: source.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self)))
    }

    /// The four ASCII bytes of a word of four big-endian ASCII units, in memory order, as one 32-bit store.
    @inline(__always)
    static func packASCII(_ word: UInt64) -> UInt32 {
        // Little-endian load of `00 a 00 b 00 c 00 d`: a at bits 8-15, b at 24-31, c at 40-47, d at 56-63.
        let spread = word >> 8
        let pairs = (spread | spread >> 8) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: pairs | pairs >> 16)
    }

    /// Writes the UTF-8 of `units` units into `utf8` (room for three bytes a unit) and returns its length, or `nil`
    /// when a surrogate is unpaired (a high one not followed by a low one, or a low one alone).
    ///
    /// Four units are looked at a time (eight while they are all ASCII): a word of four with a non-ASCII unit tells
    /// from its lowest flag bit how many ASCII units come first, so mixed text is never looked at twice.
    static func transcode(_ source: UnsafeRawBufferPointer, units: Int, into utf8: UnsafeMutableBufferPointer<UInt8>)
        -> Int?
    {
        // Offsets stay below `units` (whose 2 bytes each the caller has checked are in range) and `out` below 3 bytes
        // a unit, so the arithmetic here cannot overflow: wrapping operators, without a check on every step.
        guard let target = UnsafeMutableRawPointer(utf8.baseAddress) else { return units == 0 ? 0 : nil }
        var out = 0
        var index = 0
        while index < units {
            if index &+ 4 <= units {
                let first = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index &* 2, as: UInt64.self))
                let flags = first & asciiMask
                if flags == 0 {
                    target.storeBytes(of: packASCII(first).littleEndian, toByteOffset: out, as: UInt32.self)
                    out &+= 4
                    index &+= 4
                    continue
                }
                // The units before the first non-ASCII one (16 flag bits a unit, the first unit lowest).
                let ascii = flags.trailingZeroBitCount &>> 4
                var offset = 0
                while offset < ascii {
                    utf8[out &+ offset] = UInt8(truncatingIfNeeded: first &>> (16 &* UInt64(offset) &+ 8))
                    offset &+= 1
                }
                out &+= ascii
                index &+= ascii
            }
            // A unit at a time while they are not ASCII (and for the last three), back to words at the next ASCII.
            while index < units {
                var scalar = unit(source, index)
                if scalar < 0x80 {
                    if index &+ 4 <= units { break }
                    utf8[out] = UInt8(truncatingIfNeeded: scalar)
                    out &+= 1
                    index &+= 1
                    continue
                }
                index &+= 1
                if scalar & 0xF800 == 0xD800 {
                    guard scalar <= 0xDBFF, index < units else { return nil }
                    let low = unit(source, index)
                    guard low & 0xFC00 == 0xDC00 else { return nil }
                    scalar = 0x10000 &+ ((scalar &- 0xD800) &<< 10) &+ (low &- 0xDC00)
                    index &+= 1
                }
                out &+= encodeUTF8(scalar, into: utf8, at: out)
            }
        }
        return out
    }
}

/// Writes `scalar` (a valid Unicode scalar value) as UTF-8 at `out`; returns the bytes written (1…4). The caller
/// has room for them (so `out + 3` does not overflow).
@inline(__always)
func encodeUTF8(_ scalar: UInt32, into utf8: UnsafeMutableBufferPointer<UInt8>, at out: Int) -> Int {
    switch scalar {
    case ..<0x80:
        utf8[out] = UInt8(scalar)
        return 1
    case ..<0x800:
        utf8[out] = UInt8(truncatingIfNeeded: 0xC0 | scalar &>> 6)
        utf8[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
        return 2
    case ..<0x10000:
        utf8[out] = UInt8(truncatingIfNeeded: 0xE0 | scalar &>> 12)
        utf8[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F)
        utf8[out &+ 2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
        return 3
    default:
        // A pair is two units (6 bytes of capacity) and writes 4 bytes, so the capacity holds.
        utf8[out] = UInt8(truncatingIfNeeded: 0xF0 | scalar &>> 18)
        utf8[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | scalar &>> 12 & 0x3F)
        utf8[out &+ 2] = UInt8(truncatingIfNeeded: 0x80 | scalar &>> 6 & 0x3F)
        utf8[out &+ 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
        return 4
    }
}

/// The string of `bytes` if they are valid UTF-8, else `nil`.
///
/// ASCII (the common case) is checked a word at a time; other text by ``KnownUTF8/isValidUTF8(_:)``; either way
/// the string is then copied without the standard library validating it again.
func validatedUTF8(_ bytes: UnsafeRawBufferPointer) -> String? {
    var index = 0
    var combined: UInt64 = 0
    while index + 8 <= bytes.count {
        combined |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
    }
    while index < bytes.count {
        combined |= UInt64(bytes[index])
        index += 1
    }
    if combined & 0x8080_8080_8080_8080 == 0 { return KnownUTF8.string(bytes, isASCII: true) }
    return validatedNonASCIIUTF8(bytes)
}

/// ``validatedUTF8(_:)`` for bytes known to hold non-ASCII text.
func validatedNonASCIIUTF8(_ bytes: UnsafeRawBufferPointer) -> String? {
    KnownUTF8.isValidUTF8(bytes) ? KnownUTF8.string(bytes) : nil
}

/// ``validatedUTF8(_:)`` over an array.
func validatedUTF8(_ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { validatedUTF8($0) }
}

/// Runs `body` with a `ByteReader` over `bytes`.
@inline(__always)
func withByteReader<Result>(
    _ bytes: [UInt8],
    _ body: (ByteReader) throws(PropertyListError) -> Result
) throws(PropertyListError) -> Result {
    let outcome: Swift.Result<Result, PropertyListError> = bytes.withUnsafeBytes { raw in
        do throws(PropertyListError) {
            return .success(try body(ByteReader(raw)))
        } catch {
            return .failure(error)
        }
    }
    return try outcome.get()
}
