import Testing

@testable import PropertyList

/// Inputs the fuzzer found (Scripts/fuzz.sh), each with what it proves. Files live in Fixtures/.
@Suite struct FuzzRegressionTests {
    /// A mutated shared-reference bomb: 174 bytes, 34 objects, about 2^20 values once expanded. It is valid,
    /// and decodes in microseconds (shared children are decoded once), but everything that walks it pays for
    /// a million values: the fuzzer's round trip timed out. The expansion budget is what bounds that cost.
    @Test func sharedDAGRespectsTheExpansionBudget() throws {
        let bytes = Corpus.bytes(Corpus.fixtures + "/valid/fuzz-timeout-shared-dag-1m.bplist")
        expectError(.limitExceeded, containing: "through shared references") {
            try PropertyList(binary: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16))
        }
        let value = try PropertyList(binary: bytes)
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
    }

    /// UIDs beside float32 NaNs of all one bits (a negative NaN with a payload). Binary keeps those bits; XML
    /// writes `nan`, as CF does, and reads back the standard NaN, so equality (bit for bit) fails through XML
    /// while every UID and every NaN comes back: the fuzz target's UID check now leaves NaN-holding values alone.
    @Test func nanBitsDoNotSurviveXMLButUIDsDo() throws {
        let value = try PropertyList(binary: Corpus.bytes(Corpus.fixtures + "/valid/fuzz-uid-nan-through-xml.bplist"))
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
        let again = try PropertyList(xml: value.encoded(as: .xml))
        #expect(again != value)
        #expect(try PropertyList(xml: again.encoded(as: .xml)) == again)
        #expect(Self.leaves(again).map(Self.shape) == Self.leaves(value).map(Self.shape))
    }

    private static func leaves(_ value: PropertyList) -> [PropertyList] {
        switch value {
        case .array(let elements): elements.flatMap(leaves)
        case .dictionary(let entries): entries.values.flatMap(leaves)
        default: [value]
        }
    }

    /// A leaf with a NaN's bits forgotten.
    private static func shape(_ leaf: PropertyList) -> String {
        if case .real(let real) = leaf, real.isNaN { return "nan" }
        return "\(leaf)"
    }
}
