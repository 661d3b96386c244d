import Testing

@testable import PropertyList

/// The XML reader starts each dictionary from the keys of the last one finished at its depth (``DictionaryBuilder``):
/// what it reads must not depend on that, whether a dictionary follows the template, stops before its end, leaves it,
/// repeats a key or is empty.
@Suite struct XMLKeyTemplateTests {
    static func document(_ dictionaries: [String]) -> [UInt8] {
        Array(("<plist version=\"1.0\"><array>" + dictionaries.joined() + "</array></plist>").utf8)
    }

    static func dict(_ entries: [(String, Int)]) -> String {
        "<dict>" + entries.map { "<key>\($0.0)</key><integer>\($0.1)</integer>" }.joined() + "</dict>"
    }

    /// Each dictionary's keys in their kept order, with the values in that order.
    static func entries(_ value: PropertyList) -> [[(String, Int)]] {
        guard case .array(let elements) = value else { return [] }
        return elements.map { element in
            guard case .dictionary(let entries) = element else { return [] }
            return entries.map { ($0.key, Int($0.value.integerValue?.int64Value ?? -1)) }
        }
    }

    @Test func everyShapeAfterATemplateReadsAsWithout() throws {
        let shapes: [[(String, Int)]] = [
            [("b", 1), ("a", 2)],  // not in key order: an indexed table becomes the template
            [("b", 3), ("a", 4)],  // follows it to the end: shares its table
            [("b", 5)],  // stops before its end
            [("b", 6), ("c", 7)],  // leaves it at the second key
            [("b", 8), ("a", 9), ("b", 10)],  // a repeated key after the template's end
            [],
            [("b", 11), ("a", 12)],
            [("a", 13), ("b", 14)],  // the same keys in the other order
        ]
        let expected: [[(String, Int)]] = [
            [("b", 1), ("a", 2)], [("b", 3), ("a", 4)], [("b", 5)], [("b", 6), ("c", 7)], [("b", 10), ("a", 9)], [],
            [("b", 11), ("a", 12)], [("a", 13), ("b", 14)],
        ]
        let value = try PropertyList(xml: Self.document(shapes.map(Self.dict)))
        let read = Self.entries(value)
        #expect(read.count == expected.count)
        for (got, want) in zip(read, expected) {
            #expect(got.map(\.0) == want.map(\.0))
            #expect(got.map(\.1) == want.map(\.1))
        }
        // Each one alone (no template) reads the same.
        for (shape, want) in zip(shapes, expected) {
            let alone = try PropertyList(xml: Self.document([Self.dict(shape)]))
            #expect(Self.entries(alone).first?.map(\.0) == want.map(\.0))
        }
        guard case .array(let dictionaries) = value, case .dictionary(let second) = dictionaries[1],
            case .dictionary(let last) = dictionaries[7]
        else {
            Issue.record("not an array of dictionaries")
            return
        }
        #expect(!second.isInKeyOrder)
        #expect(second["a"] == 4 && second["b"] == 3 && second["c"] == nil)
        #expect(last.isInKeyOrder)
        #expect(try PropertyList(xml: value.encoded(as: .xml, options: .init(keyOrder: .kept))) == value)
    }

    @Test func aKeyWithAReferenceOrEmptyStillMatchesByValue() throws {
        let value = try PropertyList(
            xml: Self.document([
                "<dict><key>a&amp;b</key><integer>1</integer><key/><integer>2</integer></dict>",
                "<dict><key>a&amp;b</key><integer>3</integer><key></key><integer>4</integer></dict>",
                "<dict><key>a&amp;c</key><integer>5</integer></dict>",
            ]))
        #expect(Self.entries(value).map { $0.map(\.0) } == [["a&b", ""], ["a&b", ""], ["a&c"]])
        #expect(Self.entries(value).map { $0.map(\.1) } == [[1, 2], [3, 4], [5]])
    }

    #if _pointerBitWidth(_64)
        /// Key order made every value a word bigger once (an optional index beside the keys); it is three words.
        @Test func aValueIsThreeWords() {
            #expect(MemoryLayout<PropertyList>.stride == 24)
            #expect(MemoryLayout<PropertyList.Dictionary>.size == 16)
        }
    #endif
}
