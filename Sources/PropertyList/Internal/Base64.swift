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

extension Base64 {
    /// Decodes base64 strictly: whitespace (space, tab, CR, LF) is skipped anywhere; any other byte outside the
    /// alphabet is an error; padding must complete the last quad (`xx==` or `xxx=`) and only whitespace may
    /// follow it; the input must end on a quad boundary. `nil` when the input is not valid.
    ///
    /// Quads of four digits (the bulk of every `<data>`) are decoded in one step, and whitespace between quads (a
    /// line break and its indentation) skipped, in a loop of its own; anything else goes through ``QuadState`` a
    /// byte at a time. The output is sized once.
    static func decode(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: input.count / 4 * 3 + 3) { out, initializedCount in
            decodeTable.withUnsafeBufferPointer { table in
                var state = QuadState()
                var index = 0
                let count = input.count
                while index < count {
                    if state.isBetweenQuads {
                        var written = state.written
                        while index + 4 <= count {
                            let a = table[Int(input[index])]
                            let b = table[Int(input[index + 1])]
                            let c = table[Int(input[index + 2])]
                            let d = table[Int(input[index + 3])]
                            guard a | b | c | d < 64 else { break }
                            let bits = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            out[written] = UInt8(truncatingIfNeeded: bits >> 16)
                            out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                            out[written + 2] = UInt8(truncatingIfNeeded: bits)
                            written += 3
                            index += 4
                        }
                        state.written = written
                        // Whitespace between quads (a line break and its indentation) changes nothing, as in
                        // ``QuadState/feed(_:to:)``: skipped, then back to quads.
                        let whitespaceStart = index
                        while index < count, table[Int(input[index])] == whitespaceMark { index += 1 }
                        if index > whitespaceStart { continue }
                        guard index < count else { break }
                    }
                    guard state.feed(table[Int(input[index])], to: out) else {
                        valid = false
                        return
                    }
                    index += 1
                }
                valid = state.isComplete
                initializedCount = valid ? state.written : 0
            }
        }
        return valid ? output : nil
    }

    /// The decoder's place in the input, one digit or mark at a time.
    private struct QuadState {
        var written = 0
        private var accumulator: UInt32 = 0
        private var digits = 0
        private var awaitingSecondPad = false
        private var ended = false

        /// No quad started and no padding seen: four digits can be decoded at once.
        var isBetweenQuads: Bool { digits == 0 && !ended && !awaitingSecondPad }

        /// Whether the input so far is complete (whole quads, padding finished).
        var isComplete: Bool { digits == 0 && !awaitingSecondPad }

        @inline(__always)
        mutating func write(_ bits: UInt32, bytes: Int, to out: UnsafeMutableBufferPointer<UInt8>) {
            out[written] = UInt8(truncatingIfNeeded: bits >> 16)
            if bytes > 1 { out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8) }
            if bytes > 2 { out[written + 2] = UInt8(truncatingIfNeeded: bits) }
            written += bytes
        }

        /// Takes one decoded table entry (a digit or a mark); `false` when it makes the input invalid.
        mutating func feed(_ value: UInt8, to out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
            if value < 64 {
                guard !ended, !awaitingSecondPad else { return false }
                accumulator = accumulator << 6 | UInt32(value)
                digits += 1
                if digits == 4 {
                    write(accumulator, bytes: 3, to: out)
                    digits = 0
                    accumulator = 0
                }
                return true
            }
            if value == whitespaceMark { return true }
            guard value == paddingMark, !ended else { return false }
            if awaitingSecondPad {
                // `xx==`: 12 bits, one byte.
                write(accumulator << 12, bytes: 1, to: out)
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
                write(accumulator << 6, bytes: 2, to: out)
                ended = true
                digits = 0
                return true
            default:
                return false
            }
        }
    }
}
