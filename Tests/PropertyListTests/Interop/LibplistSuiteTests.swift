import Testing

@testable import PropertyList

/// libplist's own regression suite (`test/*.test` over `test/data/`), with its data copied into
/// `Tests/Corpus/libplist` (its `SOURCES.md` says what each file's test expects) and Hangar in libplist's place.
/// Where CoreFoundation and libplist read a file differently, the test says which reading is kept and why.
///
/// `plist_cmp` compares parsed trees, so "equal" here is ``PropertyList`` equality; where libplist compares
/// bytes (the signed/unsigned files), so do these tests. `5.plist` (`huge.test`) is not in the copy (the
/// snapshot it came from leaves out files of 4 MiB and more).
struct LibplistSuiteTests {
    static let directory = Corpus.directory + "/libplist"

    private static func bytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
        Corpus.bytes(directory + "/" + name, sourceLocation: sourceLocation)
    }

    private static func value(_ name: String) throws -> PropertyList {
        try PropertyList.decode(bytes(name)).value
    }

    /// `empty`, `small`, `medium`, `large`, `bigarray`, `dates`: XML → binary → XML gives the value back.
    @Test(arguments: ["1.plist", "2.plist", "3.plist", "4.plist", "6.plist", "7.plist", "cdata.plist"])
    func xmlThroughBinaryAndBack(name: String) throws {
        let original = try PropertyList(xml: Self.bytes(name))
        let binary = try original.encoded(as: .binary)
        let again = try PropertyList(xml: try PropertyList(binary: binary).encoded(as: .xml))
        #expect(again == original)
    }

    @Test func bigarrayHoldsOneToFourThousand() throws {
        #expect(try PropertyList(xml: Self.bytes("6.plist")) == .array((1...4000).map { .integer(.init(Int64($0))) }))
    }

    /// `dates`: four dates from 1869 to 2199 in a dictionary; the binary written is the same whatever the time zone
    /// (there is none here: dates are seconds since 2001 UTC), and so is the XML written from it.
    @Test func datesSurviveBothWays() throws {
        let value = try PropertyList(xml: Self.bytes("7.plist"))
        guard case .dictionary(let entries) = value else {
            Issue.record("7.plist is not a dictionary: \(value)")
            return
        }
        let dates = entries.values
        #expect(dates.count == 4 && dates.allSatisfy { $0.dateValue != nil })
        #expect(try PropertyList(xml: PropertyList(binary: value.encoded(as: .binary)).encoded(as: .xml)) == value)
    }

    /// `json-invalid-types`, `ostep-invalid-types`: dates, data and UIDs have no JSON form (libplist exits 2);
    /// nothing is written as OpenStep here at all.
    @Test(arguments: [
        ("7.plist", PropertyListError.Reason.dateInJSON), ("data.bplist", .dataInJSON), ("uid.bplist", .uidInJSON),
    ])
    func jsonRefuses(name: String, reason: PropertyListError.Reason) throws {
        let value = try Self.value(name)
        #expect(throws: PropertyListError.self) { try value.encoded(as: .json) }
        do {
            _ = try value.encoded(as: .json)
        } catch {
            #expect(error.reason == reason)
        }
        do {
            _ = try value.encoded(as: .openStep)
            Issue.record("\(name) was written as OpenStep")
        } catch {
            #expect(error.reason == .readOnlyFormat)
        }
    }

    /// `amp`, `invalid_tag`, `malformed_dict`, `recursion`: must be rejected.
    @Test(arguments: ["amp.plist", "invalid_tag.plist", "malformed_dict.bplist", "recursion.bplist"])
    func rejected(name: String) {
        #expect(throws: PropertyListError.self) { try PropertyList.decode(Self.bytes(name)) }
    }

    /// `offsetsize`, `refsize`: `{A: B}` with offset-table entries and object references of 1 to 8 bytes.
    @Test(arguments: 1...8)
    func everyOffsetAndReferenceWidth(width: Int) throws {
        let reference = try PropertyList(xml: Self.bytes("offxml.plist"))
        #expect(reference == ["A": "B"])
        let suffix = width == 1 ? "byte" : "bytes"
        #expect(try PropertyList(binary: Self.bytes("off\(width)\(suffix).bplist")) == reference)
        #expect(try PropertyList(binary: Self.bytes("dictref\(width)\(suffix).bplist")) == reference)
    }

    /// `order`: shared objects referenced out of order.
    @Test func orderMatchesItsXML() throws {
        let binary = try PropertyList(binary: Self.bytes("order.bplist"))
        #expect(binary == (try PropertyList(xml: Self.bytes("order.plist"))))
        #expect(binary == ["test": [1, 1], "foo": [[1], ["test": "foo"], [1], [1]]])
    }

    /// `signedunsigned1…3`: byte-identical both ways.
    @Test(arguments: ["signed", "unsigned", "signedunsigned"])
    func integersByteForByte(name: String) throws {
        let binary = Self.bytes(name + ".bplist")
        let xml = Self.bytes(name + ".plist")
        #expect(try PropertyList(xml: xml).encoded(as: .binary) == binary)
        #expect(try PropertyList(binary: binary).encoded(as: .xml) == xml)
    }

    @Test func signedunsignedValues() throws {
        let value = try PropertyList(binary: Self.bytes("signedunsigned.bplist"))
        let expected: PropertyList = [
            -1, .integer(.init(UInt64.max)), .integer(.init(Int64.max)), .integer(.init(Int64.min)),
            .integer(.init(UInt64(1) << 63)),
        ]
        #expect(value == expected)
    }

    /// `uid`: UID 7 as the root; binary → XML → binary keeps the UID (and, here, the bytes).
    @Test func uidSurvivesXML() throws {
        let original = Self.bytes("uid.bplist")
        let value = try PropertyList(binary: original)
        #expect(value == .uid(7))
        let xml = try value.encoded(as: .xml)
        #expect(try PropertyList(xml: xml) == .uid(7))
        #expect(try PropertyList(xml: xml).encoded(as: .binary) == original)
    }

    /// `entities`, `json3`: character references of 1 to 4 UTF-8 bytes; XML → JSON → binary → JSON equal.
    @Test func entities() throws {
        let value = try PropertyList(xml: Self.bytes("entities.plist"))
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
        let json = try value.encoded(as: .json)
        let again = try PropertyList(binary: PropertyList(json: json).encoded(as: .binary))
        #expect(try again.encoded(as: .json) == json)
        #expect(again == value)
        #expect(String(decoding: json, as: UTF8.self).contains("\u{1D562}"))
    }

    /// `hex`: `<integer>0x73709551615</integer>` reads as hex.
    @Test func hexInteger() throws {
        let value = try PropertyList(xml: Self.bytes("hex.plist"))
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
        #expect(String(describing: value).contains("7932961166869"))
    }

    /// `empty_keys`: libplist reads `<key></key>` and `<key><!-- comment --></key>` as the empty key, the later
    /// value winning. CoreFoundation refuses the comment inside `<key>` (it takes `<!` for a CDATA opening),
    /// which is a misreading of well-formed XML; here the file reads as libplist and every XML 1.0 reader read it.
    @Test func emptyKeys() throws {
        let value = try PropertyList(xml: Self.bytes("empty_keys.plist"))
        #expect(value == ["": "empty key with comment"])
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
    }

    /// `json-int64-min-max`, `json1`, `json2`: JSON → binary → JSON equal, integers staying integers.
    @Test(arguments: ["int64_min_max.json", "j1.json", "j2.json"])
    func jsonThroughBinaryAndBack(name: String) throws {
        let value = try PropertyList(json: Self.bytes(name))
        let again = try PropertyList(json: PropertyList(binary: value.encoded(as: .binary)).encoded(as: .json))
        #expect(again == value)
    }

    @Test func int64MinMaxExactly() throws {
        let value = try PropertyList(json: Self.bytes("int64_min_max.json"))
        #expect(value == ["INT64_MIN": .integer(.init(Int64.min)), "INT64_MAX": .integer(.init(Int64.max))])
        #expect(
            try value.encoded(as: .json)
                == Array(#"{"INT64_MAX":9223372036854775807,"INT64_MIN":-9223372036854775808}"#.utf8))
    }

    @Test func j1KeepsIntegersAndReals() throws {
        let text = String(decoding: try PropertyList(json: Self.bytes("j1.json")).encoded(as: .json), as: UTF8.self)
        #expect(text.contains("-1337") && text.contains("0.25") && text.contains("-0.25"))
        #expect(!text.contains("-1337.0"))
    }

    /// `ostep1`, `ostep2`, `ostep-comments`, `ostep-strings`: OpenStep reads (every scalar a string), and the
    /// value survives binary (nothing writes OpenStep here).
    @Test(arguments: ["o1.ostep", "o2.ostep", "o3.ostep", "test.strings"])
    func openStepThroughBinary(name: String) throws {
        let value = try PropertyList(openStep: Self.bytes(name))
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
    }

    @Test func openStepScalarsAreStrings() throws {
        let o1 = try PropertyList(openStep: Self.bytes("o1.ostep"))
        #expect(o1["foo"]?[0]?[0] == "-1337")
        #expect(o1["more"]?["b"]?[0]?["c"] == "0.25")
        let o2 = String(describing: try PropertyList(openStep: Self.bytes("o2.ostep")))
        #expect(o2.contains("\u{1234}"))
    }

    @Test func openStepCommentsHideWhatTheyCover() throws {
        let expected: PropertyList = [
            ["AFirstKey": "A First Value", "ASecondKey": "A Second Value"],
            ["CFirstKey": "C First Value", "CSecondKey": "C Second Corrected Value"],
        ]
        #expect(try PropertyList(openStep: Self.bytes("o3.ostep")) == expected)
    }

    @Test func stringsFileIsADictionaryOfTwelveStrings() throws {
        let value = try PropertyList(openStep: Self.bytes("test.strings"))
        guard case .dictionary(let entries) = value else {
            Issue.record("test.strings is not a dictionary: \(value)")
            return
        }
        #expect(entries.count == 12)
        #expect(entries.values.allSatisfy { $0.stringValue != nil })
        #expect(entries["BAR"] == "Foo")
    }
}
