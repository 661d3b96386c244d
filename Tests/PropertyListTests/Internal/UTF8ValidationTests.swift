import HangarTestSupport
import Testing

@testable import PropertyList

@Suite struct UTF8ValidationTests {
    @Test(arguments: [
        [UInt8](), Array("plain ascii, long enough to take the word path".utf8), Array("Mässig, Maß".utf8),
        Array("日本語 \u{1F680} \u{10FFFF}".utf8), [0xEF, 0xBF, 0xBD],
    ])
    func validTextIsKept(bytes: [UInt8]) {
        #expect(validatedUTF8(bytes).map { Array($0.utf8) } == bytes)
    }

    @Test(arguments: [
        [UInt8]([0x80]),  // a lone continuation byte
        [0xC3],  // truncated two-byte sequence
        [0xC0, 0xAF],  // overlong "/"
        [0xE0, 0x80, 0xAF],  // overlong, three bytes
        [0xED, 0xA0, 0x80],  // a UTF-16 surrogate encoded in UTF-8
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xFF], Array("ok so far, then".utf8) + [0xFE],
    ])
    func invalidTextIsRefused(bytes: [UInt8]) {
        #expect(validatedUTF8(bytes) == nil)
    }

    /// The validator agrees with the standard library's on random bytes rich in lead, continuation and boundary
    /// bytes (overlong, surrogate and beyond-U+10FFFF leads), with ASCII runs long enough to take the word path;
    /// and what it accepts becomes a string of exactly those bytes.
    @Test func validatorMatchesTheStandardLibrary() {
        let edges: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        var generator = SeededGenerator(seed: 29)
        for _ in 0..<50_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<24, using: &generator) {
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: bytes += Array(repeating: UInt8(ascii: "a"), count: Int.random(in: 1..<12, using: &generator))
                case 1:
                    bytes += Array(
                        (["é", "日", "\u{1F680}", "\u{10FFFF}", "\u{FFFD}"].randomElement(using: &generator) ?? "é").utf8
                    )
                default: bytes.append(edges.randomElement(using: &generator) ?? 0)
                }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let valid = bytes.withUnsafeBytes { KnownUTF8.isValidUTF8($0) }
            #expect(valid == expected, "\(bytes)")
            #expect(validatedUTF8(bytes).map { Array($0.utf8) } == (expected ? bytes : nil), "\(bytes)")
        }
    }

    @Test func xmlWithInvalidUTF8IsRefused() {
        let bytes = Array("<plist><string>".utf8) + [0xC0, 0xAF] + Array("</string></plist>".utf8)
        #expect(throws: PropertyListError.self) { try PropertyList(xml: bytes) }
    }
}
