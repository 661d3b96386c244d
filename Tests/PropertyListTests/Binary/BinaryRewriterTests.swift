import Testing

@testable import PropertyList

/// `PropertyList.rewrittenBinary` (what `hangar convert binary1` does to a binary file): a file Apple's writer
/// wrote comes back byte for byte; every other valid file comes back as the same value, and a second rewrite
/// changes nothing.
@Suite struct BinaryRewriterTests {
    /// The binary files of Tests/Corpus that CoreFoundation's writer (`CFBinaryPList.c`, through Cocoa,
    /// NSKeyedArchiver or plutil) wrote, or swift-foundation's writer, which numbers and encodes as CF does; and
    /// rust-plist's two test files, whose layout is CF's (its `binary.plist` keeps unsorted keys).
    static let writtenByApple = [
        "apple-cocoa-testdata.bplist", "apple-keyed-archive.bplist", "rust-nskeyedarchiver.bplist",
        "swift-array-42-314-255.bplist", "swift-empty-dict.bplist", "swift-generic-properties.bplist",
        "rust-binary.bplist", "rust-utf16.bplist",
    ]

    @Test(arguments: writtenByApple)
    func rewritesAppleFilesByteForByte(name: String) throws {
        let original = Corpus.bytes(Corpus.directory + "/" + name)
        let rewritten = try PropertyList.rewrittenBinary(original)
        #expect(rewritten == original, "first difference at byte \(firstDifference(rewritten, original))")
    }

    @Test(arguments: Corpus.validFiles(extension: ".bplist"))
    func rewritesEveryFileToTheSameValue(name: String) throws {
        let original = Corpus.bytes(Corpus.directory + "/" + name)
        let rewritten = try PropertyList.rewrittenBinary(original)
        #expect(try PropertyList(binary: rewritten) == PropertyList(binary: original))
        #expect(try PropertyList.rewrittenBinary(rewritten) == rewritten)
    }

    /// The keyed archive's order is the archiver's, not sorted, and its two equal strings
    /// ("OC_BuiltinPythonUnicode", "NSString") stay two objects, as the archiver wrote them.
    @Test func keepsTheArchiversOrderAndObjects() throws {
        let original = Corpus.bytes(Corpus.directory + "/apple-keyed-archive.bplist")
        let rewritten = try PropertyList.rewrittenBinary(original)
        let fromValue = try PropertyList(binary: original).encoded(as: .binary)
        #expect(fromValue != original)
        #expect(rewritten.count == 409)
        #expect(rewritten[8...16] == [0xD4, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x1C, 0x1D])
    }

    /// A dictionary naming one key twice is one entry in the value; the file is written from the value.
    @Test func writesAFileWithARepeatedKeyFromItsValue() throws {
        let original = Corpus.bytes(Corpus.directory + "/go-duplicate-keys.bplist")
        let value = try PropertyList(binary: original)
        #expect(try PropertyList.rewrittenBinary(original) == value.encoded(as: .binary))
    }

    /// Bad input fails as the decoder fails it.
    @Test(arguments: Corpus.invalidFiles(extension: ".bplist").filter { $0 != "cpython-ascii-invalid-byte.bplist" })
    func refusesWhatTheDecoderRefuses(name: String) {
        let bytes = Corpus.bytes(Corpus.directory + "/invalid/" + name)
        var decodeError: PropertyListError?
        do { _ = try PropertyList(binary: bytes) } catch { decodeError = error }
        var rewriteError: PropertyListError?
        do { _ = try PropertyList.rewrittenBinary(bytes) } catch { rewriteError = error }
        #expect(decodeError != nil)
        #expect(rewriteError == decodeError)
    }

    private func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    }
}
