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
}
