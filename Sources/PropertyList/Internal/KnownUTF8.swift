/// Strings from bytes this module has already checked (or written) as UTF-8, made without the standard library
/// checking them again.
///
/// Every public way to make a `String` from bytes validates them (`String(decoding:)` at about 470 MB/s on mixed
/// text on the benchmark machine, most of a string-heavy decode); `UTF8Span(unchecked:)` (Swift 6.2) takes bytes
/// known to be valid, and `String(copying:)` copies them (about 3 GB/s). The readers check their bytes once: the
/// binary reader writes its UTF-8 itself from UTF-16 whose surrogates it has paired, or has seen only ASCII; text
/// readers run ``isValidUTF8(_:)``, which `UTF8ValidationTests` holds to the standard library's definition.
enum KnownUTF8 {
    /// The string of `bytes`, which must be valid UTF-8 (and ASCII when `isASCII`).
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer, isASCII: Bool = false) -> String {
        let buffer = bytes.assumingMemoryBound(to: UInt8.self)
        #if compiler(>=6.2)
            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                return String(copying: unsafe UTF8Span(unchecked: buffer.span, isKnownASCII: isASCII))
            }
        #endif
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8: no byte C0, C1 or F5…FF, no stray or missing continuation byte, no overlong
    /// form, no surrogate (ED A0…ED BF), nothing above U+10FFFF. ASCII runs are skipped eight bytes at a time.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xED:
                length = 3
                high = 0x9F
            case 0xE1...0xEF: length = 3
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return false }
            if length >= 3 {
                guard bytes[index + 2] & 0xC0 == 0x80 else { return false }
                if length == 4 {
                    guard bytes[index + 3] & 0xC0 == 0x80 else { return false }
                }
            }
            index += length
        }
        return true
    }
}
