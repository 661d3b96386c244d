import Hangar
import PropertyList
import Testing

@Suite struct ModelErrorTests {
    @Test func descriptionIsPathThenMessage() {
        let error = HangarError(.invalidValue, "too many hours", at: ModelPath([.key("airplanes"), .index(0)]))
        #expect(error.description == "airplanes[0]: too many hours")
        #expect(error.message == "too many hours")
        #expect(error.code == .invalidValue)
    }

    @Test func atTheRootTheDescriptionIsTheMessage() {
        #expect(HangarError(.missingKey, #"missing key "name""#).description == #"missing key "name""#)
    }

    @Test func kindsHaveStableNames() {
        let kinds: [HangarError.Code] = [
            .missingKey, .typeMismatch, .outOfRange, .invalidValue, .unknownClassTag, .disallowedClassTag,
            .unrepresentable,
        ]
        #expect(
            kinds.map(\.description) == [
                "missingKey", "typeMismatch", "outOfRange", "invalidValue", "unknownClassTag", "disallowedClassTag",
                "unrepresentable",
            ])
        #expect(Set(kinds).count == kinds.count)
    }

    @Test(arguments: [
        (PropertyList.string("12"), #"expected integer, found string "12""#),
        (.real(1.5), "expected integer, found real 1.5"),
        (.boolean(true), "expected integer, found boolean true"),
        (.date(0), "expected integer, found date 2001-01-01T00:00:00Z"),
        (.data([1]), "expected integer, found data (1 byte)"),
        (.data([1, 2, 3]), "expected integer, found data (3 bytes)"),
        (.array([1, 2]), "expected integer, found array (2 elements)"),
        (.dictionary(["a": 1]), "expected integer, found dictionary (1 key)"),
        (
            .string(String(repeating: "x", count: 50)),
            "expected integer, found string \"\(String(repeating: "x", count: 40))…\""
        ),
        (.string("a\"b\n"), #"expected integer, found string "a\"b\n""#),
    ])
    func mismatchMessagesShowWhatWasFound(found: PropertyList, message: String) {
        expectModelError(.typeMismatch, message) { () throws(HangarError) in try Int(propertyList: found) }
    }
}
