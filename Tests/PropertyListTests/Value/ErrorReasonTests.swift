import Testing

@testable import PropertyList

/// Every reader and writer reports which failure happened as a ``PropertyListError/Reason``, so code matches
/// on it instead of on the message; the shared rules (depth limit, repeated keys) behave the same in every format.
@Suite struct ErrorReasonTests {
    /// The reason of the error `body` throws, `nil` when it throws none.
    private static func reason(_ body: () throws -> Any) -> PropertyListError.Reason? {
        do {
            _ = try body()
            return nil
        } catch let error as PropertyListError {
            return error.reason
        } catch {
            Issue.record("not a PropertyListError: \(error)")
            return nil
        }
    }

    @Test func nestingPastTheLimitIsTooDeepInEveryReader() {
        let limits = DecodingLimits(maxDepth: 8)
        let depth = 9
        let xml = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let openStep = String(repeating: "(", count: depth) + String(repeating: ")", count: depth)
        var nested: PropertyList = []
        for _ in 1..<depth { nested = [nested] }
        #expect(Self.reason { try PropertyList(xml: Array(xml.utf8), limits: limits) } == .tooDeep)
        #expect(Self.reason { try PropertyList(json: Array(json.utf8), limits: limits) } == .tooDeep)
        #expect(Self.reason { try PropertyList(openStep: Array(openStep.utf8), limits: limits) } == .tooDeep)
        #expect(Self.reason { try PropertyList(binary: try nested.encoded(as: .binary), limits: limits) } == .tooDeep)
        // One level less is fine everywhere.
        #expect(Self.reason { try PropertyList(json: Array(json.dropFirst().dropLast().utf8), limits: limits) } == nil)
    }

    @Test func aRepeatedKeyKeepsItsLastValueInEveryReader() throws {
        let xml =
            "<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>"
        let expected: PropertyList = ["a": 3, "b": 2]
        #expect(try PropertyList(xml: Array(xml.utf8)) == expected)
        #expect(try PropertyList(json: Array(#"{"a": 1, "b": 2, "a": 3}"#.utf8)) == expected)
        #expect(try PropertyList(openStep: Array("{a = 1; b = 2; a = 3;}".utf8)) == ["a": "3", "b": "2"])
        #expect(try PropertyList(openStep: Array("a = 1; b = 2; a = 3;".utf8)) == ["a": "3", "b": "2"])
    }

    @Test func writersNameWhatTheyCannotWrite() {
        #expect(Self.reason { try PropertyList.date(0).encoded(as: .json) } == .dateInJSON)
        #expect(Self.reason { try PropertyList.data([1]).encoded(as: .json) } == .dataInJSON)
        #expect(Self.reason { try PropertyList.real(.nan).encoded(as: .json) } == .nonFiniteReal)
        #expect(Self.reason { try PropertyList.string("\u{1}").encoded(as: .xml) } == .unwritableCharacter)
        #expect(Self.reason { try PropertyList.date(.infinity).encoded(as: .binary) } == .nonFiniteDate)
        #expect(Self.reason { try PropertyList.string("x").encoded(as: .openStep) } == .readOnlyFormat)
        let lossy = EncodingOptions(json: JSONEncodingOptions(lossyDatesAndData: true))
        #expect(Self.reason { try PropertyList.date(0).encoded(as: .json, options: lossy) } == nil)
    }

    @Test func readersNameWhatWentWrong() {
        #expect(Self.reason { try PropertyList(xml: Array("<dict><key>a</key></dict>".utf8)) } == .missingValue)
        #expect(Self.reason { try PropertyList(xml: Array("<array>".utf8)) } == .unterminated)
        #expect(Self.reason { try PropertyList(json: Array(#"["abc"#.utf8)) } == .unterminated)
        #expect(Self.reason { try PropertyList(json: Array("null".utf8)) } == .nullValue)
        #expect(Self.reason { try PropertyList(json: Array("[1,]".utf8)) } == .syntax)
        #expect(Self.reason { try PropertyList(json: Array("18446744073709551616".utf8)) } == .numberOutOfRange)
        #expect(Self.reason { try PropertyList(xml: Array("<string>&#0;</string>".utf8)) } == .invalidEscape)
        #expect(Self.reason { try PropertyList(openStep: Array(#""\UDC00""#.utf8)) } == .unpairedSurrogate)
        #expect(Self.reason { try PropertyList.decode([]) } == .emptyInput)
        #expect(
            Self.reason { try PropertyList(binary: Array("bplist15".utf8) + Array(repeating: 0, count: 40)) }
                == .unsupportedBinaryVersion)
        #expect(Self.reason { try PropertyList(binary: Array("nope".utf8)) } == .notBinary)
        // A binary array that contains itself.
        let cycle = BinaryBuilder([[0xA1, 0x00]]).build()
        #expect(Self.reason { try PropertyList(binary: cycle) } == .referenceCycle)
    }

    @Test func reasonsDescribeThemselves() {
        #expect(PropertyListError.Reason.dateInJSON.description == "dateInJSON")
        #expect(PropertyListError.Reason.tooDeep != .tooManyObjects)
    }
}
