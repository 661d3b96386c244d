import Testing

@testable import PropertyList

/// A keyed archive's UID is a value of its own: read and written in binary as CoreFoundation does, spelled in
/// XML as CF spells it, refused by JSON unless lossy.
struct UIDTests {
    // MARK: The value

    @Test func aUIDIsNeitherItsIntegerNorItsDictionary() {
        #expect(PropertyList.uid(7) != .integer(7))
        #expect(PropertyList.uid(7) != ["CF$UID": 7])
        #expect(PropertyList.uid(7) == .uid(7))
        #expect(PropertyList.uid(7).hashValue == PropertyList.uid(7).hashValue)
        #expect(Set<PropertyList>([.uid(1), .integer(1), .uid(1)]).count == 2)
        #expect(PropertyList.uid(7).kindName == "uid")
        #expect(PropertyList.uid(7).uidValue == 7)
        #expect(PropertyList.integer(7).uidValue == nil)
    }

    // MARK: Binary

    /// CF reads n+1 bytes for marker `8n` (1 to 16), not necessarily the fewest.
    static let widths: [([UInt8], UInt32)] = [
        ([0x80, 0x07], 7),
        ([0x81, 0x01, 0x02], 258),
        ([0x82, 0x01, 0x00, 0x00], 65536),
        ([0x83, 0xFF, 0xFF, 0xFF, 0xFF], .max),
        ([0x87, 0, 0, 0, 0, 0, 0, 0, 0x2A], 42),
        ([0x8F] + [UInt8](repeating: 0, count: 15) + [5], 5),
        ([0x88] + [UInt8](repeating: 0, count: 9), 0),
    ]

    @Test(arguments: widths)
    func binaryReadsEveryWidth(object: [UInt8], expected: UInt32) throws {
        #expect(try PropertyList(binary: BinaryBuilder([object]).build()) == .uid(expected))
    }

    /// CF and libplist refuse a UID above 2^32−1; CF would cut a 16-byte 2^64+5 to 5, which is refused here too.
    @Test(arguments: [
        [UInt8]([0x87, 0, 0, 0, 1, 0, 0, 0, 0]),
        [0x84, 0x01, 0x02, 0x03, 0x04, 0x05],
        [0x8F, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5],
    ])
    func binaryRefusesUIDsAboveTheRange(object: [UInt8]) {
        expectError(.invalidValue, containing: "above 2^32−1", at: 8) {
            try PropertyList(binary: BinaryBuilder([object]).build())
        }
    }

    @Test func aTruncatedUIDIsRefused() {
        expectError(.malformed, containing: "runs past the end", at: 8) {
            try PropertyList(binary: BinaryBuilder([[0x83, 0x01]]).build())
        }
    }

    /// CF's `_appendUID`: 1, 2 or 4 bytes; a UID is never shared with an equal integer, nor with another UID.
    @Test func binaryWritesCFWidthsAndOneObjectPerUID() throws {
        let bytes = try PropertyList.array([.uid(7), .uid(7), .integer(7), .uid(300), .uid(70_000)]).encoded(
            as: .binary)
        // Objects: the array, then 80 07, 80 07, 10 07, 81 01 2C, 83 00 01 11 70.
        #expect(Array(bytes[8..<14]) == [0xA5, 1, 2, 3, 4, 5])
        #expect(Array(bytes[14..<27]) == [0x80, 7, 0x80, 7, 0x10, 7, 0x81, 0x01, 0x2C, 0x83, 0x00, 0x01, 0x11])
        #expect(try PropertyList(binary: bytes) == [.uid(7), .uid(7), .integer(7), .uid(300), .uid(70_000)])
    }

    /// A keyed archive comes back byte for byte once it is in the form this writer (and `plistlib`) writes; the
    /// `UIDInteropTests` check that form against `plistlib`'s own bytes. (The corpus archives themselves list their
    /// dictionary keys in the order their writers met them, and ``PropertyList/Dictionary`` keeps keys sorted, so
    /// their first rewrite orders the keys; UIDs no longer change it: they used to become `{CF$UID: n}`.)
    @Test(arguments: ["apple-keyed-archive.bplist", "rust-nskeyedarchiver.bplist", "libplist-uid.bplist"])
    func keyedArchivesRoundTripByteForByte(name: String) throws {
        let value = try PropertyList(binary: Corpus.bytes(Corpus.directory + "/" + name))
        let written = try value.encoded(as: .binary)
        #expect(try PropertyList(binary: written) == value)
        #expect(try PropertyList(binary: written).encoded(as: .binary) == written)
        // Through XML as CF writes and reads it, and back to the same bytes.
        let xml = try value.encoded(as: .xml)
        #expect(try PropertyList(xml: xml) == value)
        #expect(try PropertyList(xml: xml).encoded(as: .binary) == written)
    }

    /// libplist's archive (its writer sorts keys too) is reproduced as it is.
    @Test func libplistsUIDFileIsReproduced() throws {
        let original = Corpus.bytes(Corpus.directory + "/libplist-uid.bplist")
        #expect(try PropertyList(binary: original).encoded(as: .binary) == original)
    }

    @Test func theKeyedArchiveHoldsUIDs() throws {
        let value = try PropertyList(binary: Corpus.bytes(Corpus.directory + "/apple-keyed-archive.bplist"))
        #expect(value["$top"]?["root"] == .uid(1))
        #expect(value["$objects"]?[1]?["$class"] == .uid(2))
        #expect(value["$objects"]?[1]?["pytype"] == .integer(1))
    }

    @Test func randomValuesWithUIDsRoundTripThroughBinary() throws {
        for seed in UInt64(1)...200 {
            var random = RandomValues(seed: seed, uids: true)
            let value = random.value()
            #expect(try PropertyList(binary: value.encoded(as: .binary)) == value, "seed \(seed)")
        }
    }

    // MARK: XML

    /// CF's layout (`_CFAppendXML0`): the dictionary on four lines, its entry one level deeper.
    @Test func xmlWritesTheCFDictionary() throws {
        let value: PropertyList = ["a": .uid(256)]
        let text = String(decoding: try value.encoded(as: .xml), as: UTF8.self)
        #expect(
            text.contains(
                "<dict>\n\t<key>a</key>\n\t<dict>\n\t\t<key>CF$UID</key>\n\t\t<integer>256</integer>\n\t</dict>\n</dict>\n"
            ))
        let root = String(decoding: try PropertyList.uid(4_294_967_295).encoded(as: .xml), as: UTF8.self)
        #expect(
            root.contains(
                "<plist version=\"1.0\">\n<dict>\n\t<key>CF$UID</key>\n\t<integer>4294967295</integer>\n</dict>\n</plist>"
            ))
    }

    private static func xml(_ body: String) -> [UInt8] {
        Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n".utf8)
    }

    /// CF's reader (`parseDictTag`): one entry, the key `CF$UID`, a number; here an integer in 0 … 2^32−1.
    static let xmlCases: [(String, PropertyList)] = [
        ("<dict><key>CF$UID</key><integer>7</integer></dict>", .uid(7)),
        ("<dict><key>CF$UID</key><integer>0x10</integer></dict>", .uid(16)),
        ("<dict><key>CF$UID</key><integer>4294967295</integer></dict>", .uid(.max)),
        // A repeated key is one entry, the last value winning, as CFDictionarySetValue leaves it.
        ("<dict><key>CF$UID</key><integer>1</integer><key>CF$UID</key><integer>2</integer></dict>", .uid(2)),
        ("<array><dict><key>CF$UID</key><integer>3</integer></dict></array>", [.uid(3)]),
        // Not a UID, for CF too: a string, a Boolean, a second key, another key.
        ("<dict><key>CF$UID</key><string>7</string></dict>", ["CF$UID": "7"]),
        ("<dict><key>CF$UID</key><true/></dict>", ["CF$UID": true]),
        ("<dict><key>CF$UID</key><integer>7</integer><key>b</key><integer>1</integer></dict>", ["CF$UID": 7, "b": 1]),
        ("<dict><key>CF$UIDx</key><integer>7</integer></dict>", ["CF$UIDx": 7]),
        ("<dict/>", [:]),
        // CF keeps the low 32 bits of these (UID 0, 4294967295, 1); here they stay what they say.
        ("<dict><key>CF$UID</key><integer>4294967296</integer></dict>", ["CF$UID": 4_294_967_296]),
        ("<dict><key>CF$UID</key><integer>-1</integer></dict>", ["CF$UID": -1]),
        ("<dict><key>CF$UID</key><real>1.9</real></dict>", ["CF$UID": 1.9]),
    ]

    @Test(arguments: xmlCases)
    func xmlReadsCFsDictionaryAsAUID(body: String, expected: PropertyList) throws {
        #expect(try PropertyList(xml: Self.xml(body)) == expected)
    }

    @Test func randomValuesWithUIDsRoundTripThroughXML() throws {
        for seed in UInt64(1)...200 {
            var random = RandomValues(seed: seed, xmlSafe: true, uids: true)
            let value = random.value()
            guard let xml = try? value.encoded(as: .xml) else { continue }  // reals XML cannot hold, say
            let back = try PropertyList(xml: xml)
            #expect(back == value || value.holdsUIDShapedDictionary, "seed \(seed)")
        }
    }

    // MARK: JSON and OpenStep

    @Test func jsonRefusesAUIDWithItsPath() {
        do {
            let value: PropertyList = ["objects": [1, .uid(2)]]
            _ = try value.encoded(as: .json)
            Issue.record("a UID was written as JSON")
        } catch {
            #expect(error.reason == .uidInJSON)
            #expect(error.code == .unrepresentable)
            #expect(error.location == .path("objects[1]"))
        }
    }

    @Test func lossyJSONWritesTheCFDictionary() throws {
        let lossy = EncodingOptions(json: JSONEncodingOptions(lossyDatesAndData: true))
        let value: PropertyList = ["a": .uid(7)]
        let compact = try value.encoded(as: .json, options: lossy)
        #expect(String(decoding: compact, as: UTF8.self) == #"{"a":{"CF$UID":7}}"#)
        let pretty = EncodingOptions(json: JSONEncodingOptions(prettyPrinted: true, lossyDatesAndData: true))
        let text = String(decoding: try value.encoded(as: .json, options: pretty), as: UTF8.self)
        #expect(text == "{\n  \"a\" : {\n    \"CF$UID\" : 7\n  }\n}")
        // JSON reads it back as the dictionary it is: JSON has no UID.
        #expect(try PropertyList(json: compact) == ["a": ["CF$UID": 7]])
    }

    /// OpenStep has no numbers, so CF's rule never applies there: the dictionary stays a dictionary.
    @Test func openStepKeepsTheDictionary() throws {
        #expect(try PropertyList(openStep: Array("{ \"CF$UID\" = 7; }".utf8)) == ["CF$UID": "7"])
    }
}

extension PropertyList {
    /// Whether some dictionary in the value is exactly `{CF$UID: integer in 0 … 2^32−1}`: XML cannot tell such
    /// a dictionary from a UID (nor can CF), so it reads back as one.
    var holdsUIDShapedDictionary: Bool {
        switch self {
        case .dictionary(let entries):
            if ValueBuilder.uid(in: entries) != nil { return true }
            return entries.values.contains { $0.holdsUIDShapedDictionary }
        case .array(let elements): return elements.contains { $0.holdsUIDShapedDictionary }
        default: return false
        }
    }
}
