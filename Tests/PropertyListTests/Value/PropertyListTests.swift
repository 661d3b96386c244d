import Testing

@testable import PropertyList

@Suite struct PropertyListValueTests {
    @Test func realsCompareByBitPattern() {
        #expect(PropertyList.real(.nan) == .real(.nan))
        #expect(PropertyList.real(0.0) != .real(-0.0))
        #expect(PropertyList.date(.nan) == .date(.nan))
        #expect(Set<PropertyList>([.real(.nan), .real(.nan)]).count == 1)
    }

    @Test func stringsCompareByScalars() {
        let composed: PropertyList = "\u{E9}"
        let decomposed: PropertyList = "e\u{301}"
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test func integersCoverTheWholeRange() {
        #expect(PropertyList.Integer(Int64.min).int64Value == Int64.min)
        #expect(PropertyList.Integer(UInt64.max).uint64Value == UInt64.max)
        #expect(PropertyList.Integer(UInt64.max).int64Value == nil)
        #expect(PropertyList.Integer(-1).uint64Value == nil)
        #expect(PropertyList.Integer(5 as Int64) == PropertyList.Integer(5 as UInt64))
        #expect(PropertyList.Integer(exactly: Int64.min) != nil)
        #expect(PropertyList.Integer(-1) < PropertyList.Integer(UInt64.max))
        #expect(PropertyList.Integer(UInt64.max).description == "18446744073709551615")
        #expect(PropertyList.Integer(Int64.min).description == "-9223372036854775808")
        #expect(PropertyList.Integer(300).exactly(UInt8.self) == nil)
        #expect(PropertyList.Integer(-3).exactly(Int8.self) == -3)
    }

    @Test func dictionariesIgnoreOrder() {
        let a: PropertyList = ["a": 1, "b": [true, "x"]]
        let b: PropertyList = ["b": [true, "x"], "a": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a["b"]?[1] == "x")
    }
}
