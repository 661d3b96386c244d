import Testing

@testable import PropertyList

@Suite struct BinaryReaderTests {
    // MARK: The hostile corpus, each with the defence that must catch it

    @Test(arguments: [
        ("cpython-array-count-overflow.bplist", PropertyListError.Code.malformed, "is not an integer", 9),
        ("cpython-data-count-huge.bplist", .malformed, "is not an integer", 9),
        ("cpython-date-nan.bplist", .invalidValue, "not a finite time", 8),
        ("cpython-dict-key-not-string.bplist", .malformed, "key (object 1) is not a string", 9),
        ("cpython-num-objects-huge.bplist", .malformed, "more than the file can hold", 18),
        ("cpython-offset-size-zero.bplist", .malformed, "offset size is 0", 16),
        ("cpython-offset-table-offset-overflow.bplist", .malformed, "does not fill the space", 34),
        ("cpython-ref-index-out-of-range.bplist", .malformed, "object 2 is out of range", 9),
        ("cpython-ref-size-zero.bplist", .malformed, "reference size is 0", 20),
        ("cpython-too-short.bplist", .malformed, "shorter than the smallest", 8),
        ("cpython-top-object-out-of-range.bplist", .malformed, "top object 1 is not among", 26),
        ("cpython-utf16-lone-surrogate.bplist", .invalidValue, "unpaired surrogate", 8),
        ("gen-array-count-overflow-int13.bplist", .malformed, "runs past the end", 8),
        ("gen-cycle-self-array.bplist", .malformed, "reference cycle", 9),
        ("gen-data-count-huge-int13.bplist", .malformed, "runs past the end", 8),
        ("gen-deep-nesting-1000.bplist", .limitExceeded, "(the limit is 512)", 2568),
        ("gen-shared-ref-bomb-2e32.bplist", .limitExceeded, "through shared references", 37),
        ("libplist-malformed-dict.bplist", .malformed, "is not a string", 35),
        ("libplist-recursion.bplist", .malformed, "does not fill the space", 52),
        ("rust-circular-array.bplist", .malformed, "does not fill the space", 443),
        ("swift-nontop-offset-below-header.bplist", .malformed, "outside the object area", 20),
        ("swift-offset-8byte-huge.bplist", .malformed, "outside the object area", 35),
        ("swift-ref-8byte-huge.bplist", .malformed, "is out of range", 17),
    ])
    func hostileCorpusFile(name: String, code: PropertyListError.Code, message: String, offset: Int) {
        let bytes = Corpus.bytes(Corpus.directory + "/invalid/" + name)
        expectError(code, containing: message, at: offset) { try PropertyList(binary: bytes) }
    }

    @Test func everyHostileCorpusFileIsInTheTable() {
        // cpython-ascii-invalid-byte.bplist is read (as ISO-8859-1): BinaryCorpusTests pins its value.
        #expect(Corpus.invalidFiles(extension: ".bplist").count == 24)
    }

    // MARK: Crafted defects

    @Test func cycleThroughADictionaryValue() {
        // {"a": <itself>}
        let bytes = BinaryBuilder([[0xD1, 0x01, 0x00], BinaryBuilder.ascii("a")]).build()
        expectError(.malformed, containing: "Object 0 contains itself", at: 10) { try PropertyList(binary: bytes) }
    }

    @Test func sharedChildIsNotACycle() throws {
        // ["x", "x"] through one shared string object, and [[…],[…]] sharing one array.
        let shared = BinaryBuilder([[0xA2, 0x01, 0x01], [0xA1, 0x02], BinaryBuilder.ascii("x")]).build()
        #expect(try PropertyList(binary: shared) == [["x"], ["x"]])
    }

    @Test func expansionBudgetCountsSharedReferencesEveryTime() {
        // 20 levels of [x, x]: 2^21 - 1 values once expanded, from 23 objects.
        var objects: [[UInt8]] = []
        for level in 0..<20 { objects.append([0xA2, UInt8(level + 1), UInt8(level + 1)]) }
        objects.append(BinaryBuilder.ascii("leaf"))
        let bytes = BinaryBuilder(objects).build()
        let limits = DecodingLimits(maxExpandedNodes: 1 << 20)
        expectError(.limitExceeded, containing: "more than 1048576 values") {
            try PropertyList(binary: bytes, limits: limits)
        }
        #expect((try? PropertyList(binary: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 22))) != nil)
    }

    @Test func depthLimitIsConfigurable() throws {
        // [[["deep"]]] is 3 levels.
        let bytes = BinaryBuilder([[0xA1, 0x01], [0xA1, 0x02], [0xA1, 0x03], BinaryBuilder.ascii("deep")]).build()
        #expect(try PropertyList(binary: bytes, limits: DecodingLimits(maxDepth: 3)) == [[["deep"]]])
        expectError(.limitExceeded, containing: "(the limit is 2)", at: 12) {
            try PropertyList(binary: bytes, limits: DecodingLimits(maxDepth: 2))
        }
    }

    @Test func objectCountLimit() {
        let bytes = BinaryBuilder([[0xA2, 0x01, 0x02], [0x08], [0x09]]).build()
        expectError(.limitExceeded, containing: "the limit of 2") {
            try PropertyList(binary: bytes, limits: DecodingLimits(maxObjects: 2))
        }
    }

    @Test(arguments: [
        // 16-byte integers: a signed 128-bit value, accepted when it lies in −2^63 … 2^64−1.
        ([UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8), PropertyList.integer(.init(UInt64.max))),
        ([UInt8](repeating: 0xFF, count: 16), PropertyList.integer(-1)),
        ([UInt8](repeating: 0xFF, count: 8) + [0x80] + [UInt8](repeating: 0, count: 7), .integer(.init(Int64.min))),
    ])
    func sixteenByteIntegers(payload: [UInt8], expected: PropertyList) throws {
        #expect(try PropertyList(binary: BinaryBuilder([[0x14] + payload]).build()) == expected)
    }

    @Test(arguments: [
        [0x00, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8),  // 2^64: too big
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0x7F] + [UInt8](repeating: 0, count: 7),  // below −2^63
        [0x80] + [UInt8](repeating: 0, count: 15),  // −2^127
    ])
    func sixteenByteIntegerOutOfRange(payload: [UInt8]) {
        expectError(.invalidValue, containing: "outside −2^63 … 2^64−1", at: 8) {
            try PropertyList(binary: BinaryBuilder([[0x14] + payload]).build())
        }
    }

    @Test(arguments: [
        ([UInt8]([0x00]), PropertyListError.Code.unsupported, "null"),
        ([0x0F], .unsupported, "fill"),
        ([0x0C], .unsupported, "URL"),
        ([0x0E] + [UInt8](repeating: 0, count: 16), .unsupported, "UUID"),
        ([0xC0], .unsupported, "set"),
        ([0x71, 0x41], .unsupported, "UTF-8 string"),
        ([0xB0], .unsupported, "ordered set"),
        ([0x90], .malformed, "Unknown object marker 0x90"),
        ([0xE0], .malformed, "Unknown object marker 0xE0"),
        ([0x21, 0, 0], .malformed, "A real of 2 bytes"),
        ([0x15] + [UInt8](repeating: 0, count: 32), .malformed, "An integer of 2^5 bytes"),
        ([0x34] + [UInt8](repeating: 0, count: 8), .malformed, "Unknown object marker 0x34"),
    ])
    func markersWeDoNotMap(object: [UInt8], code: PropertyListError.Code, message: String) {
        expectError(code, containing: message, at: 8) { try PropertyList(binary: BinaryBuilder([object]).build()) }
    }

    @Test func uidReadsAsAUID() throws {
        #expect(try PropertyList(binary: BinaryBuilder([[0x81, 0x01, 0x02]]).build()) == .uid(258))
    }

    @Test func float32WidensExactly() throws {
        let value = try PropertyList(binary: BinaryBuilder([[0x22, 0x3F, 0xC0, 0x00, 0x00]]).build())
        #expect(value == .real(1.5))
    }

    @Test func versionsOtherThanZeroAreRefused() throws {
        var bytes = BinaryBuilder([[0x08]]).build()
        bytes[6] = UInt8(ascii: "1")
        bytes[7] = UInt8(ascii: "6")
        expectError(.unsupported, containing: "\"16\" is not supported", at: 6) { try PropertyList(binary: bytes) }
        bytes[6] = UInt8(ascii: "0")
        bytes[7] = UInt8(ascii: "x")
        #expect(try PropertyList(binary: bytes) == false, "Apple reads bplist0 followed by any character")
    }

    @Test(arguments: 1...8, 1...8)
    func everyReferenceAndOffsetWidth(refSize: Int, offsetSize: Int) throws {
        var builder = BinaryBuilder(
            [
                [0xD1] + BinaryBuilder.bigEndian(1, width: refSize) + BinaryBuilder.bigEndian(2, width: refSize),
                BinaryBuilder.ascii("A"), BinaryBuilder.ascii("B"),
            ],
            refSize: refSize, offsetSize: offsetSize)
        builder.topObject = 0
        #expect(try PropertyList(binary: builder.build()) == ["A": "B"])
    }

    @Test func garbageBetweenOffsetTableAndTrailer() {
        var builder = BinaryBuilder([[0x08]])
        builder.gap = [0]
        expectError(.malformed, containing: "does not fill the space") { try PropertyList(binary: builder.build()) }
    }

    @Test func trailerWidthsOfZeroAndNine() {
        for width in [0, 9] {
            var refs = BinaryBuilder([[0xA0]])
            refs.refSize = width
            expectError(.malformed, containing: "reference size is \(width)") { try PropertyList(binary: refs.build()) }
            // A two-byte object keeps the file at 42 bytes even with an empty offset table.
            var offsets = BinaryBuilder([[0x10, 0x05]])
            offsets.offsetSize = width
            expectError(.malformed, containing: "offset size is \(width)") { try PropertyList(binary: offsets.build()) }
        }
    }

    @Test func extendedCountMustFitTheObjectArea() {
        // Data claiming 2^32 bytes through a 4-byte count, in a 60-byte file.
        let bytes = BinaryBuilder([[0x4F, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]]).build()
        expectError(.malformed, containing: "runs past the end", at: 8) { try PropertyList(binary: bytes) }
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        let bytes = BinaryBuilder(
            [
                [0xD2, 0x01, 0x01, 0x02, 0x03], BinaryBuilder.ascii("k"), BinaryBuilder.ascii("first"),
                BinaryBuilder.ascii("second"),
            ]
        ).build()
        #expect(try PropertyList(binary: bytes) == ["k": "second"])
    }

    /// Every prefix of valid files, and every single-byte corruption of a small one, is refused or read —
    /// never a crash.
    @Test(arguments: ["apple-cocoa-testdata.bplist", "rust-utf16.bplist", "libplist-uid.bplist"])
    func everyTruncationIsRefused(name: String) {
        let bytes = Corpus.bytes(Corpus.directory + "/" + name)
        for length in 0..<bytes.count {
            #expect(throws: PropertyListError.self, "prefix of \(length) bytes") {
                try PropertyList(binary: Array(bytes[..<length]))
            }
        }
    }

    @Test func everySingleByteCorruptionIsHandled() {
        let original = Corpus.bytes(Corpus.directory + "/swift-generic-properties.bplist")
        for index in original.indices {
            for replacement: UInt8 in [0x00, 0x0F, 0x7F, 0x80, 0xFF, original[index] ^ 0x01] {
                var bytes = original
                bytes[index] = replacement
                do {
                    let value = try PropertyList(binary: bytes)
                    // Whatever it read must write and read back equal.
                    #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
                } catch {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }
}

/// Expects `body` to throw a `PropertyListError` with `code`, a message containing `fragment`, and,
/// when given, a byte offset.
func expectError(
    _ code: PropertyListError.Code,
    containing fragment: String,
    at offset: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Any
) {
    do {
        _ = try body()
        Issue.record(
            "Expected a \(code) error containing \"\(fragment)\"; nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as PropertyListError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        if let offset {
            #expect(error.location == .byteOffset(offset), "\(error)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("Expected a PropertyListError, got \(error)", sourceLocation: sourceLocation)
    }
}
