import Testing

@testable import PropertyList

/// Canonically equivalent keys are two keys: `"caf\u{E9}"` (precomposed) and `"cafe\u{301}"` (decomposed),
/// `"\u{212B}"` ANGSTROM SIGN and `"\u{C5}"`, survive every reader and writer, as in CF, plistlib and libplist.
@Suite struct ExactKeyTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let angstromSign = "\u{212B}"
    static let aWithRing = "\u{C5}"

    /// Four keys that Swift's `String` equality folds into two.
    static let fourKeys: PropertyList = .dictionary(
        PropertyList.Dictionary(
            uniqueKeysWithValues: [
                (precomposed, 1), (decomposed, 2), (angstromSign, 3), (aWithRing, 4),
            ] as [(String, PropertyList)]))

    @Test func equivalentKeysAreDistinct() throws {
        let dictionary = try #require(Self.fourKeys.dictionaryValue)
        #expect(Self.precomposed == Self.decomposed, "the premise: Swift's String equality folds them")
        #expect(dictionary.count == 4)
        #expect(dictionary[Self.precomposed] == 1)
        #expect(dictionary[Self.decomposed] == 2)
        #expect(dictionary[Self.angstromSign] == 3)
        #expect(dictionary[Self.aWithRing] == 4)
        #expect(!dictionary.contains(key: "cafe"))
    }

    @Test func literalsKeepEquivalentKeysAndTheLastOfARepeatedKey() {
        let value: PropertyList = ["caf\u{E9}": 1, "cafe\u{301}": 2, "x": 3, "x": 4]
        #expect(value.dictionaryValue?.count == 3)
        #expect(value["x"] == 4)
        #expect(value["cafe\u{301}"] == 2)
    }

    @Test func equalityAndHashingAreScalarExact() {
        let a: PropertyList = [Self.precomposed: 1]
        let b: PropertyList = [Self.decomposed: 1]
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(
            Set([PropertyList.DictionaryKey(Self.precomposed), PropertyList.DictionaryKey(Self.decomposed)]).count == 2)
    }

    @Test func entriesIterateInTheirOrderAndSortInWritingOrder() throws {
        // UTF-16 order: U+FF21 (a BMP scalar above the surrogates) sorts after U+1F600, whose UTF-16 starts 0xD83D.
        let value: PropertyList = ["\u{FF21}": 1, "\u{1F600}": 2, "b": 3, "a": 4, "B": 5]
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.keys == ["\u{FF21}", "\u{1F600}", "b", "a", "B"])
        #expect(!dictionary.isInKeyOrder)
        #expect(dictionary.sortedByKey().keys == ["B", "a", "b", "\u{1F600}", "\u{FF21}"])
        #expect(dictionary.sortedByKey().isInKeyOrder)
    }

    @Test func mutationKeepsOrderAndExactness() {
        var dictionary: PropertyList.Dictionary = ["m": 1]
        dictionary["z"] = 2
        dictionary["a"] = 3
        dictionary[Self.precomposed] = 4
        dictionary[Self.decomposed] = 5
        #expect(dictionary.keys == ["m", "z", "a", Self.precomposed, Self.decomposed])
        #expect(
            dictionary.sortedByKey().keys
                == ["a", "m", "z", Self.decomposed, Self.precomposed].sorted { KeyOrder.precedes($0, $1) })
        #expect(dictionary.removeValue(forKey: Self.decomposed) == 5)
        #expect(dictionary[Self.precomposed] == 4)
        dictionary["m"] = nil
        #expect(dictionary.count == 3)
        #expect(dictionary.updateValue(9, forKey: "a") == 3)
        var other: PropertyList.Dictionary = ["a": 10, Self.decomposed: 11]
        other.merge(dictionary) { mine, _ in mine }
        #expect(other == ["a": 10, Self.decomposed: 11, "z": 2, Self.precomposed: 4])
        #expect(other.keys == ["a", Self.decomposed, "z", Self.precomposed])
    }

    @Test func unsortedInputKeepsItsOrderAndRepeatedKeysKeepTheLastValueInTheFirstPlace() {
        let dictionary = PropertyList.Dictionary([("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]) { _, last in last }
        #expect(dictionary.keys == ["b", "a", "c"])
        #expect(dictionary.values == [3, 5, 4])
        #expect(dictionary["a"] == 5 && dictionary["b"] == 3 && dictionary["c"] == 4)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml, .json])
    func everyWriterAndReaderKeepsThem(format: PropertyListFormat) throws {
        let nested: PropertyList = ["outer": [Self.fourKeys, Self.fourKeys], Self.precomposed: Self.fourKeys]
        let bytes = try nested.encoded(as: format)
        let decoded = try PropertyList.decode(bytes)
        #expect(decoded.format == format)
        #expect(decoded.value == nested)
        #expect(decoded.value[Self.precomposed]?.dictionaryValue?.count == 4)
    }

    @Test func theOpenStepReaderKeepsThem() throws {
        let text = "{ \"\(Self.precomposed)\" = 1; \"\(Self.decomposed)\" = 2; \"\(Self.angstromSign)\" = 3; }"
        let value = try PropertyList(openStep: Array(text.utf8))
        #expect(value == [Self.precomposed: "1", Self.decomposed: "2", Self.angstromSign: "3"])
        #expect(value.dictionaryValue?.count == 3)
    }

    @Test func theXMLReaderKeepsThemFromText() throws {
        let text = """
            <plist version="1.0"><dict><key>\(Self.precomposed)</key><integer>1</integer>\
            <key>\(Self.decomposed)</key><integer>2</integer></dict></plist>
            """
        #expect(try PropertyList(xml: Array(text.utf8)).dictionaryValue?.count == 2)
    }
}

/// The same pairs, both ways with the real peers.
@Suite struct ExactKeyInteropTests {
    private static let pythonWriter = """
        import plistlib, sys
        value = {"caf\\u00e9": 1, "cafe\\u0301": 2, "\\u212b": 3, "\\u00c5": 4}
        for path, fmt in ((sys.argv[1], plistlib.FMT_BINARY), (sys.argv[2], plistlib.FMT_XML)):
            with open(path, "wb") as f:
                plistlib.dump(value, f, fmt=fmt)
        """

    @Test(.enabled(if: Peers.python3 != nil, "python3 is missing: plistlib interop is NOT tested"))
    func plistlibBothWays() throws {
        let directory = try FileSystem.temporaryDirectory()
        let binary = directory + "/python.bplist"
        let xml = directory + "/python.plist"
        let written = try Peers.run(try #require(Peers.python3), ["-c", Self.pythonWriter, binary, xml])
        #expect(written.status == 0, "\(written.stderr)")
        for path in [binary, xml] {
            #expect(try PropertyList.decode(Corpus.bytes(path)).value == ExactKeyTests.fourKeys, "\(path)")
        }
        let ours = directory + "/ours.bplist"
        let oursXML = directory + "/ours.plist"
        try FileSystem.write(try ExactKeyTests.fourKeys.encoded(as: .binary), to: ours)
        try FileSystem.write(try ExactKeyTests.fourKeys.encoded(as: .xml), to: oursXML)
        let reader = """
            import plistlib, sys
            expected = sorted(["caf\\u00e9", "cafe\\u0301", "\\u212b", "\\u00c5"])
            for path in sys.argv[1:]:
                value = plistlib.load(open(path, "rb"))
                print(len(value), sorted(value) == expected)
            """
        let read = try Peers.run(try #require(Peers.python3), ["-c", reader, ours, oursXML])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "4 True\n4 True\n")
    }

    @Test(.enabled(if: Peers.plistutil != nil, "plistutil (libplist-utils) is missing: libplist interop is NOT tested"))
    func plistutilBothWays() throws {
        let directory = try FileSystem.temporaryDirectory()
        for (format, flag) in [(PropertyListFormat.binary, "xml"), (.xml, "bin")] {
            let ours = "\(directory)/ours-\(flag)"
            let theirs = "\(directory)/theirs-\(flag)"
            try FileSystem.write(try ExactKeyTests.fourKeys.encoded(as: format), to: ours)
            let output = try Peers.run(try #require(Peers.plistutil), ["-i", ours, "-o", theirs, "-f", flag])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(
                try PropertyList.decode(Corpus.bytes(theirs)).value == ExactKeyTests.fourKeys,
                "via plistutil -f \(flag)")
        }
    }
}
