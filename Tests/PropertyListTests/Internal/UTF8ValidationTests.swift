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

    @Test func xmlWithInvalidUTF8IsRefused() {
        let bytes = Array("<plist><string>".utf8) + [0xC0, 0xAF] + Array("</string></plist>".utf8)
        #expect(throws: PropertyListError.self) { try PropertyList(xml: bytes) }
    }
}
