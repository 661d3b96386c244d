import Testing

@testable import PropertyList

/// The hostile-input corpus: `Fixtures/invalid/hostile-*`, written by `Scripts/make-hostile-corpus.py`. Each file
/// exercises one defense of one decoder and must be refused with its typed error, at its location, quickly.
///
/// The time bound is a bound on a hostile input, not a performance test: every file here is refused in well under
/// a millisecond, and the bound is generous so that a loaded machine never fails it. A missing defense (a bomb that
/// expands, a nesting that recurses) costs seconds to minutes or never returns, which the bound catches.
@Suite struct HostileInputTests {
    /// How long any hostile file may take to be refused.
    static let bound: Duration = .seconds(1)

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let code: PropertyListError.Code
        let fragment: String
        let location: PropertyListError.Location
        init(_ file: String, _ code: PropertyListError.Code, _ fragment: String, _ location: PropertyListError.Location)
        {
            self.file = file
            self.code = code
            self.fragment = fragment
            self.location = location
        }
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        // Binary
        Case(
            "hostile-bin-reference-cycle.bplist", .malformed, "Object 0 contains itself (a reference cycle)",
            .byteOffset(11)),
        Case(
            "hostile-bin-self-reference.bplist", .malformed, "Object 0 contains itself (a reference cycle)",
            .byteOffset(9)),
        Case("hostile-bin-shared-ref-bomb-2e64.bplist", .limitExceeded, "through shared references", .byteOffset(133)),
        Case("hostile-bin-count-larger-than-file.bplist", .malformed, "(2147483648) runs past the end", .byteOffset(8)),
        Case(
            "hostile-bin-offset-table-outside-file.bplist", .malformed, "at offset 1099511627776) does not fill",
            .byteOffset(35)),
        Case(
            "hostile-bin-offset-size-count-overflow.bplist", .malformed, "more than the file can hold", .byteOffset(26)),
        Case(
            "hostile-bin-int128-negative-high.bplist", .invalidValue, "16-byte integer is outside −2^63 … 2^64−1",
            .byteOffset(8)),
        Case("hostile-bin-utf16-bad-surrogates.bplist", .invalidValue, "unpaired surrogate", .byteOffset(8)),
        Case(
            "hostile-bin-trailer-ref-size-0.bplist", .malformed, "reference size is 0; it must be 1 to 8",
            .byteOffset(21)),
        Case(
            "hostile-bin-trailer-offset-size-9.bplist", .malformed, "offset size is 9; it must be 1 to 8",
            .byteOffset(25)),
        // XML
        Case(
            "hostile-xml-entity-declarations.xml", .unsupported, "entity declarations are not supported",
            .line(2, column: 17)),
        Case(
            "hostile-xml-external-entity.xml", .unsupported, "entity declarations are not supported",
            .line(2, column: 17)),
        Case("hostile-xml-undeclared-entity.xml", .malformed, "unknown entity &xxe;", .line(4, column: 9)),
        Case(
            "hostile-xml-unclosed-tags.xml", .malformed, "no closing tag for <array> opened at line 6",
            .line(8, column: 1)),
        Case("hostile-xml-deep-nesting-10000.xml", .limitExceeded, "(the limit is 512)", .line(4, column: 3585)),
        Case("hostile-xml-invalid-base64.xml", .invalidValue, "invalid base64 in <data>", .line(4, column: 7)),
        Case(
            "hostile-xml-integer-out-of-range.xml", .invalidValue, "integer 18446744073709551616 out of range",
            .line(4, column: 10)),
        Case(
            "hostile-xml-invalid-date.xml", .invalidValue, "invalid date \"2023-02-29T12:00:00Z\"", .line(4, column: 7)),
        // OpenStep
        Case("hostile-openstep-unterminated-string.openstep", .malformed, "unterminated string", .line(2, column: 12)),
        Case(
            "hostile-openstep-unterminated-comment.openstep", .malformed, "unterminated comment", .line(2, column: 20)),
        Case(
            "hostile-openstep-deep-nesting-10000.openstep", .limitExceeded, "(the limit is 512)", .line(1, column: 513)),
        // JSON
        Case("hostile-json-deep-nesting-10000.json", .limitExceeded, "(the limit is 512)", .line(1, column: 513)),
        Case("hostile-json-unterminated-string.json", .malformed, "unterminated string", .line(1, column: 10)),
    ]

    static func decoder(for file: String) -> ([UInt8]) throws(PropertyListError) -> PropertyList {
        if file.hasSuffix(".bplist") { return { bytes throws(PropertyListError) in try PropertyList(binary: bytes) } }
        if file.hasSuffix(".xml") { return { bytes throws(PropertyListError) in try PropertyList(xml: bytes) } }
        if file.hasSuffix(".json") { return { bytes throws(PropertyListError) in try PropertyList(json: bytes) } }
        return { bytes throws(PropertyListError) in try PropertyList(openStep: bytes) }
    }

    @Test(arguments: cases)
    func refusedWithItsTypedErrorInTime(_ hostile: Case) {
        let bytes = Corpus.bytes(Corpus.fixtures + "/invalid/" + hostile.file)
        #expect(!bytes.isEmpty)
        let decode = Self.decoder(for: hostile.file)
        let clock = ContinuousClock()
        var thrown: PropertyListError?
        let elapsed = clock.measure {
            do throws(PropertyListError) {
                let value = try decode(bytes)
                Issue.record("\(hostile.file) decoded to \(value)")
            } catch {
                thrown = error
            }
        }
        #expect(elapsed < Self.bound, "\(hostile.file) took \(elapsed)")
        guard let error = thrown else { return }
        #expect(error.code == hostile.code, "\(error)")
        #expect(error.message.contains(hostile.fragment), "\(error)")
        #expect(error.location == hostile.location, "\(error)")
    }

    /// Format detection routes every file to a decoder that refuses it with the same kind of error, in time.
    /// (OpenStep text starting with `{` is tried as JSON first, and that error is the one reported.)
    @Test(arguments: cases)
    func detectionRefusesItToo(_ hostile: Case) {
        let bytes = Corpus.bytes(Corpus.fixtures + "/invalid/" + hostile.file)
        let clock = ContinuousClock()
        let start = clock.now
        let error = propertyListError { _ = try PropertyList.decode(bytes) }
        #expect(clock.now - start < Self.bound)
        #expect(error?.code == hostile.code, "\(String(describing: error))")
    }

    @Test func everyHostileFileIsInTheTable() {
        let files = FileSystem.list(Corpus.fixtures + "/invalid").filter { $0.hasPrefix("hostile-") }
        #expect(Set(files) == Set(Self.cases.map(\.file)))
        #expect(files.count == Self.cases.count)
    }

    /// Every proper prefix of a small valid file (a truncated download, a torn write) is refused: as not a binary
    /// plist while even the `bplist00` header is incomplete, as malformed after that.
    @Test func binaryTruncatedAtEveryByteIsRefused() throws {
        let value: PropertyList = [
            "name": "Amelia", "hours": .integer(.init(UInt64.max)), "ratio": 0.5, "flag": true,
            "when": .date(-1_000_000.5), "blob": .data([0, 1, 2]), "list": ["x", "ü", -1, ["nested": [:]]],
        ]
        let bytes = try value.encoded(as: .binary)
        #expect(try PropertyList(binary: bytes) == value)
        let clock = ContinuousClock()
        let start = clock.now
        for length in 0..<bytes.count {
            let error = propertyListError { _ = try PropertyList(binary: Array(bytes[..<length])) }
            #expect(
                error?.code == (length < 8 ? .unknownFormat : .malformed),
                "prefix of \(length) bytes: \(String(describing: error))")
        }
        #expect(clock.now - start < Self.bound)
    }

    /// Every prefix of an XML file either is refused or, once only trailing blank space is missing, reads the same.
    @Test func xmlTruncatedAtEveryByteIsRefusedOrComplete() throws {
        let value: PropertyList = ["name": "Amelia", "list": [1, 2.5, false, .data([7])], "when": .date(0)]
        let bytes = try value.encoded(as: .xml)
        let clock = ContinuousClock()
        let start = clock.now
        var refused = 0
        for length in 0..<bytes.count {
            do {
                #expect(try PropertyList(xml: Array(bytes[..<length])) == value, "prefix of \(length) bytes")
            } catch {
                refused += 1
                #expect(error.code == .malformed || error.code == .invalidValue, "\(error)")
            }
        }
        #expect(refused >= bytes.count - 1)
        #expect(clock.now - start < Self.bound)
    }
}
