import Foundation
import HangarTestSupport
import Testing

@testable import PropertyList

/// Dictionaries keep their keys' order, from a file or as built, through every reader and writer that is asked
/// to (`keyOrder: .kept`); equality ignores the order, and the default writers still sort.
@Suite struct KeyOrderTests {
    /// A CF-style XML file whose keys are not sorted, with keys holding dots (an entitlements file).
    static let entitlements =
        Corpus.directory
        + "/wild/files/yonaskolb__XcodeGen__Tests_Fixtures_TestProject_Network_Extension_NetworkExtension.entitlements"

    /// Every dictionary's keys, in pre-order.
    static func keyOrders(_ value: PropertyList) -> [[String]] {
        switch value {
        case .array(let elements): elements.flatMap(keyOrders)
        case .dictionary(let entries): [entries.keys] + entries.values.flatMap(keyOrders)
        default: []
        }
    }

    @Test func equalityAndHashIgnoreOrder() {
        let forward: PropertyList = ["b": 1, "a": ["y": 2, "x": 3]]
        let backward: PropertyList = ["a": ["x": 3, "y": 2], "b": 1]
        #expect(forward == backward)
        #expect(Set([forward, backward]).count == 1)
        #expect(forward != ["a": ["x": 3, "y": 2], "b": 2])
        #expect(Self.keyOrders(forward) == [["b", "a"], ["y", "x"]])
    }

    @Test func editsKeepEveryOtherKeyInPlaceAndNewKeysGoLast() {
        var dictionary: PropertyList.Dictionary = ["z": 1, "b": 2, "m": 3]
        dictionary["b"] = 20
        dictionary["a"] = 4
        #expect(dictionary.keys == ["z", "b", "m", "a"])
        #expect(dictionary.values == [1, 20, 3, 4])
        dictionary["z"] = nil
        #expect(dictionary.keys == ["b", "m", "a"])
        #expect(dictionary["a"] == 4 && dictionary["b"] == 20 && dictionary["m"] == 3 && dictionary["z"] == nil)
        #expect(dictionary.index(forKey: "a") == 2)
        dictionary["a"] = nil
        #expect(dictionary.isInKeyOrder, "b, m: back in key order")
    }

    /// Random edits against the obvious model, an array of pairs searched scalar for scalar.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomEditsMatchAListOfPairs(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let alphabet = ["a", "b", "c", "caf\u{E9}", "cafe\u{301}", "\u{FF21}", "\u{1F600}", "B", "", "a.b"]
        var dictionary = PropertyList.Dictionary()
        var model: [(String, PropertyList)] = []
        for step in 0..<400 {
            let key = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            let place = model.firstIndex { UTF8Bytes.equal($0.0, key) }
            if Bool.random(using: &generator) {
                dictionary[key] = .integer(.init(step))
                if let place {
                    model[place].1 = .integer(.init(step))
                } else {
                    model.append((key, .integer(.init(step))))
                }
            } else {
                #expect(dictionary.removeValue(forKey: key) == place.map { model[$0].1 })
                if let place { model.remove(at: place) }
            }
            #expect(dictionary.keys.elementsEqual(model.map(\.0)) { UTF8Bytes.equal($0, $1) })
            for (modelKey, value) in model { #expect(dictionary[modelKey] == value) }
            let rebuilt = PropertyList.Dictionary(uniqueKeysWithValues: model.shuffled(using: &generator))
            #expect(rebuilt == dictionary)
            #expect(rebuilt.hashValue == dictionary.hashValue)
        }
    }

    @Test func aFileKeepsItsOrderByteForByteThroughXML() throws {
        let bytes = try #require(FileSystem.read(Self.entitlements))
        let value = try PropertyList(xml: bytes)
        #expect(
            value.dictionaryValue?.keys == [
                "com.apple.security.app-sandbox", "com.apple.security.application-groups",
                "com.apple.developer.networking.networkextension",
            ])
        #expect(try value.encoded(as: .xml, options: EncodingOptions(keyOrder: .kept)) == bytes)
        let sorted = try value.encoded(as: .xml)
        #expect(sorted != bytes, "the default still sorts")
        #expect(try PropertyList(xml: sorted).dictionaryValue?.isInKeyOrder == true)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml, .json])
    func keptOrderSurvivesEveryFormat(format: PropertyListFormat) throws {
        let value: PropertyList = [
            "zeta": 1, "alpha": ["delta": "x", "beta": [["n": 1, "m": 2]]], "caf\u{E9}": true, "cafe\u{301}": false,
        ]
        let kept = EncodingOptions(keyOrder: .kept)
        let decoded = try PropertyList.decode(try value.encoded(as: format, options: kept)).value
        #expect(decoded == value)
        #expect(Self.keyOrders(decoded) == Self.keyOrders(value))
        let sorted = try PropertyList.decode(try value.encoded(as: format)).value
        #expect(
            Self.keyOrders(sorted) == [["alpha", "cafe\u{301}", "caf\u{E9}", "zeta"], ["beta", "delta"], ["m", "n"]])
    }

    @Test func equalValuesBuiltInAnyOrderGiveTheSameDefaultBytes() throws {
        let forward: PropertyList = ["b": 1, "a": ["y": 2, "x": 3]]
        let backward: PropertyList = ["a": ["x": 3, "y": 2], "b": 1]
        for format in [PropertyListFormat.binary, .xml, .json] {
            #expect(try forward.encoded(as: format) == backward.encoded(as: format))
        }
    }

    /// A keyed archive CF wrote (keys in hash order) converted to XML and back keeps every dictionary's order.
    @Test func aKeyedArchiveKeepsItsOrderThroughXMLAndBack() throws {
        let bytes = try #require(FileSystem.read(Corpus.directory + "/apple-keyed-archive.bplist"))
        let value = try PropertyList(binary: bytes)
        let orders = Self.keyOrders(value)
        #expect(orders.contains { $0 != $0.sorted { KeyOrder.precedes($0, $1) } }, "the premise: hash order")
        let kept = EncodingOptions(keyOrder: .kept)
        let xml = try value.encoded(as: .xml, options: kept)
        let back = try PropertyList(xml: xml).encoded(as: .binary, options: kept)
        let again = try PropertyList(binary: back)
        #expect(again == value)
        #expect(Self.keyOrders(again) == orders)
        #expect(try PropertyList.rewrittenBinary(back) == back, "written as Apple's writer numbers objects")
    }

    @Test func repeatedKeysInAFileKeepTheLastValueAtTheFirstPlace() throws {
        let text = """
            <plist version="1.0"><dict><key>b</key><integer>1</integer><key>a</key><integer>2</integer>\
            <key>b</key><integer>3</integer></dict></plist>
            """
        let value = try PropertyList(xml: Array(text.utf8))
        #expect(value.dictionaryValue?.keys == ["b", "a"])
        #expect(value["b"] == 3)
    }
}
