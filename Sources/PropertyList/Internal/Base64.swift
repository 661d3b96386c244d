/// Standard base64 (RFC 4648 alphabet, `=` padding), without Foundation.
enum Base64 {
    /// The 64 output characters in order.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Marks in ``decodeTable`` for bytes that are not digits.
    static let whitespaceMark: UInt8 = 0xFE
    static let invalidMark: UInt8 = 0xFF
    static let paddingMark: UInt8 = 0xFD

    /// Byte → 6-bit value, or one of the marks.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: invalidMark, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        for byte in [0x20, 0x09, 0x0A, 0x0D] { table[byte] = whitespaceMark }
        table[Int(UInt8(ascii: "="))] = paddingMark
        return table
    }()

    /// The number of characters the encoding of `count` bytes takes, padding included.
    @inline(__always)
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Appends the padded base64 encoding of `bytes[range]` to `output`.
    static func encode(_ bytes: [UInt8], _ range: Range<Int>, into output: inout some ByteAppending) {
        output.appendWriting(count: encodedCount(range.count)) { out in
            alphabet.withUnsafeBufferPointer { table in
                bytes.withUnsafeBufferPointer { input in
                    var index = range.lowerBound
                    var written = 0
                    let end = range.upperBound
                    while index + 3 <= end {
                        let chunk =
                            UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                        out[written] = table[Int(chunk >> 18 & 0x3F)]
                        out[written + 1] = table[Int(chunk >> 12 & 0x3F)]
                        out[written + 2] = table[Int(chunk >> 6 & 0x3F)]
                        out[written + 3] = table[Int(chunk & 0x3F)]
                        index += 3
                        written += 4
                    }
                    let rest = end - index
                    guard rest > 0 else { return }
                    let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                    out[written] = table[Int(chunk >> 18 & 0x3F)]
                    out[written + 1] = table[Int(chunk >> 12 & 0x3F)]
                    out[written + 2] = rest == 2 ? table[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
                    out[written + 3] = UInt8(ascii: "=")
                }
            }
        }
    }
}

/// An incremental, strict base64 decoder: whitespace (space, tab, CR, LF) is skipped anywhere; any other byte
/// outside the alphabet is an error; padding must complete the last quad (`xx==` or `xxx=`) and only
/// whitespace may follow it; the input must end on a quad boundary.
struct Base64Decoder {
    private(set) var output: [UInt8] = []
    /// A local reference to the table, so the hot loop does not go through the global's lazy initializer.
    private let table = Base64.decodeTable
    private var accumulator: UInt32 = 0
    private var digits = 0
    private var awaitingSecondPad = false
    private var ended = false

    /// A decoder expecting about `count` input bytes.
    init(expectedInputCount count: Int) {
        output.reserveCapacity(count / 4 * 3 + 3)
    }

    /// Takes one input byte; `false` when it makes the input invalid.
    @inline(__always)
    mutating func feed(_ byte: UInt8) -> Bool {
        let value = table[Int(byte)]
        if value < 64 {
            guard !ended, !awaitingSecondPad else { return false }
            accumulator = accumulator << 6 | UInt32(value)
            digits += 1
            if digits == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                digits = 0
                accumulator = 0
            }
            return true
        }
        if value == Base64.whitespaceMark { return true }
        guard value == Base64.paddingMark, !ended else { return false }
        if awaitingSecondPad {
            // `xx==`: 12 bits, one byte.
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
            awaitingSecondPad = false
            ended = true
            digits = 0
            return true
        }
        switch digits {
        case 2:
            awaitingSecondPad = true
            return true
        case 3:
            // `xxx=`: 18 bits, two bytes.
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
            ended = true
            digits = 0
            return true
        default:
            return false
        }
    }

    /// Whether the input seen so far is complete (whole quads, padding finished).
    var isComplete: Bool { digits == 0 && !awaitingSecondPad }
}
