import HangarTestSupport
import Testing

@testable import PropertyList

/// The eight-bytes-at-a-time scans agree with their byte-by-byte definitions on random input rich in the
/// bytes they look for.
@Suite struct WordAtATimeTests {
    /// Bytes drawn mostly from the edges of the ranges the scans test.
    private static let interesting: [UInt8] = [
        0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x25, 0x26, 0x27, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x41, 0x7F, 0x80,
        0xBF, 0xC3, 0xE9, 0xEE, 0xEF, 0xF0, 0xFF,
    ]

    private static func randomBytes(_ generator: inout SeededGenerator, count: Int) -> [UInt8] {
        (0..<count).map { _ in
            Bool.random(using: &generator)
                ? interesting.randomElement(using: &generator) ?? 0
                : UInt8(ascii: "a") + UInt8.random(in: 0..<26, using: &generator)
        }
    }

    @Test func skipPlainXMLTextStopsAtTheFirstByteTextMustLookAt() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let bytes = Self.randomBytes(&generator, count: Int.random(in: 0..<40, using: &generator))
            let start = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            let expected =
                bytes[start...].firstIndex { $0 == 0x26 || $0 == 0x3C || $0 == 0xEF } ?? bytes.count
            var seen: UInt64 = 0
            let found = try withByteReader(bytes) { reader in reader.skipPlainXMLText(from: start, seen: &seen) }
            #expect(found == expected, "\(bytes) from \(start)")
            let passed = bytes[start..<found].reduce(UInt8(0)) { $0 | $1 }
            #expect((seen & 0x8080_8080_8080_8080 != 0) == (passed >= 0x80), "\(bytes) from \(start)")
        }
    }

    @Test func mayNeedXMLAttentionFindsEveryInterestingByte() {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<20_000 {
            let bytes = Self.randomBytes(&generator, count: 8)
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let expected = bytes.contains { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0xEF }
            #expect(UTF8Bytes.mayNeedXMLAttention(word) == expected, "\(bytes)")
        }
    }

    @Test func utf16DecodingMatchesTheStandardLibrary() throws {
        var generator = SeededGenerator(seed: 13)
        let samples: [UInt16] = [0x41, 0x7A, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x65E5, 0xFFFD, 0xFF21]
        for _ in 0..<2_000 {
            var units: [UInt16] = []
            for _ in 0..<Int.random(in: 0..<24, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: units += [0xD83D, 0xDE80]  // a surrogate pair
                case 1: units.append(samples.randomElement(using: &generator) ?? 0x41)
                default: units.append(UInt16.random(in: 0x20..<0x7F, using: &generator))
                }
            }
            let bigEndian = units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let decoded = try withByteReader(bigEndian) { reader in
                reader.utf16BigEndianString(at: 0, units: units.count)
            }
            #expect(
                decoded.map { Array($0.unicodeScalars) }
                    == Array(String(decoding: units, as: UTF16.self).unicodeScalars))
        }
        // Long ASCII runs (the eight-unit path) broken by non-ASCII units and lone surrogates at every position.
        for _ in 0..<5_000 {
            var units: [UInt16] = []
            for _ in 0..<Int.random(in: 0..<40, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: units.append([0xD800, 0xDBFF, 0xDC00, 0xDFFF].randomElement(using: &generator) ?? 0xD800)
                case 1: units += [0xD83D, 0xDE80]
                case 2: units.append(samples.randomElement(using: &generator) ?? 0x41)
                default: units.append(UInt16.random(in: 0..<0x80, using: &generator))
                }
            }
            let bigEndian = units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let decoded = try withByteReader(bigEndian) { reader in
                reader.utf16BigEndianString(at: 0, units: units.count)
            }
            // The definition: every high surrogate followed by a low one, every low one preceded by a high one.
            let expected = String(validating: units, as: UTF16.self)
            #expect(decoded.map { Array($0.unicodeScalars) } == expected.map { Array($0.unicodeScalars) }, "\(units)")
        }
        // A lone surrogate anywhere, also right after an ASCII run of four, is refused.
        for units in [[0x41, 0x42, 0x43, 0x44, 0xD800], [0xDC00], [0x41, 0xD83D, 0x41]] as [[UInt16]] {
            let bigEndian = units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            #expect(try withByteReader(bigEndian) { $0.utf16BigEndianString(at: 0, units: units.count) } == nil)
        }
    }

    @Test func base64DecodesWhatItEncodesWithWhitespaceAnywhere() {
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<1_000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            var text: [UInt8] = []
            Base64.encode(bytes, 0..<bytes.count, into: &text)
            var spaced: [UInt8] = []
            for byte in text {
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    spaced.append([0x20, 0x09, 0x0A, 0x0D][Int.random(in: 0..<4, using: &generator)])
                }
                spaced.append(byte)
            }
            spaced.append(0x0A)
            #expect(spaced.withUnsafeBytes { Base64.decode($0) } == bytes)
        }
    }

    @Test(arguments: ["A", "AB", "ABC", "A===", "AB=C", "AB==CD", "ABC=D", "AB=", "A B C D E", "AB*D", "=AAA"])
    func base64RefusesWhatIsNotWhole(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { Base64.decode($0) } == nil)
    }

    @Test func base64ReadsPaddingAndEmptyInput() {
        #expect(Array("QQ==".utf8).withUnsafeBytes { Base64.decode($0) } == [0x41])
        #expect(Array("QUI=".utf8).withUnsafeBytes { Base64.decode($0) } == [0x41, 0x42])
        #expect(Array("QUJD\n QUJD ".utf8).withUnsafeBytes { Base64.decode($0) } == Array("ABCABC".utf8))
        #expect(Array(" ".utf8).withUnsafeBytes { Base64.decode($0) } == [])
    }
}
