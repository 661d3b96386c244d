import Testing

@testable import PropertyList

/// Every binary file of Tests/Corpus decodes as CPython's `plistlib` does, and re-encodes to bytes that
/// decode equal; every invalid one is refused with a typed error.
@Suite struct BinaryCorpusTests {
    static let valid = Corpus.validFiles(extension: ".bplist")
    static let invalid = Corpus.invalidFiles(extension: ".bplist")

    @Test(arguments: valid)
    func decodesAsThePeerDoes(name: String) throws {
        let value = try PropertyList(binary: Corpus.bytes(Corpus.directory + "/" + name))
        #expect(CanonicalDump.render(value) == Corpus.expectedDump(for: name))
    }

    @Test(arguments: valid)
    func reencodesToEqualValue(name: String) throws {
        let value = try PropertyList(binary: Corpus.bytes(Corpus.directory + "/" + name))
        let bytes = try value.encoded(as: .binary)
        #expect(try PropertyList(binary: bytes) == value)
        // Deterministic: encoding the decoded copy gives the same bytes again.
        #expect(try PropertyList(binary: bytes).encoded(as: .binary) == bytes)
    }

    @Test(arguments: invalid.filter { $0 != "cpython-ascii-invalid-byte.bplist" })
    func refusesHostileFile(name: String) {
        let bytes = Corpus.bytes(Corpus.directory + "/invalid/" + name)
        #expect(throws: PropertyListError.self) { try PropertyList(binary: bytes) }
    }

    /// The one file of `invalid/` that is read: an ASCII string `51 FF`, whose byte 0xFF CF reads as the
    /// ISO-8859-1 character ÿ (the corpus MANIFEST expects that).
    @Test func readsTheASCIIStringWithAHighByteAsLatin1() throws {
        let bytes = Corpus.bytes(Corpus.directory + "/invalid/cpython-ascii-invalid-byte.bplist")
        #expect(try PropertyList(binary: bytes) == "\u{FF}")
    }

    /// Apple's writer numbers objects in pre-order, uniques scalars and (in this sample) lists keys sorted,
    /// so a faithful writer reproduces Cocoa's file byte for byte (CPython's test_appleformatting).
    @Test func reproducesCocoaBytesExactly() throws {
        let original = Corpus.bytes(Corpus.directory + "/apple-cocoa-testdata.bplist")
        let value = try PropertyList(binary: original)
        #expect(try value.encoded(as: .binary) == original)
    }

    @Test(arguments: [
        "swift-empty-dict.bplist", "swift-array-42-314-255.bplist", "go-array-16-items.bplist",
        "go-sized-int-boundaries.bplist", "go-unsigned-int-sizes.bplist", "libplist-data.bplist",
    ])
    func reproducesSmallPeerFilesExactly(name: String) throws {
        let original = Corpus.bytes(Corpus.directory + "/" + name)
        #expect(try PropertyList(binary: original).encoded(as: .binary) == original)
    }
}
