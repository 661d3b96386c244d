import HangarHummingbird
import PropertyList
import Testing

@testable import HangarStudio

/// The diff by path and the path segments, in process.
@Suite struct StudioTreeTests {
    /// The paths of `diff`'s entries as `change path` lines (keys as they are, indexes in brackets).
    static func paths(_ entries: [PropertyList]) -> [String] {
        entries.map { entry in
            let steps = (entry["path"]?.arrayValue ?? []).map { step in
                step["key"]?.stringValue ?? "[\(step["index"]?.integerValue?.description ?? "?")]"
            }
            return (entry["change"]?.stringValue ?? "?") + " " + steps.joined(separator: "/")
        }
    }

    @Test func aDiffNamesEveryPathAddedRemovedOrChangedAndNothingElse() {
        let before: PropertyList = ["name": "Ada", "tags": ["a", "b"], "n": 1, "same": ["x": 1]]
        let after: PropertyList = ["name": "Ada L", "tags": ["a"], "extra": true, "same": ["x": 1]]
        #expect(
            Self.paths(StudioTree.diff(before, after)).sorted() == [
                "added extra", "changed name", "removed n", "removed tags/[1]",
            ])
    }

    @Test func keysThatDifferOnlyByNormalizationAreTwoKeys() {
        let before: PropertyList = .dictionary(["caf\u{E9}": 1])
        let after: PropertyList = .dictionary(["cafe\u{301}": 1])
        #expect(Self.paths(StudioTree.diff(before, after)).sorted() == ["added cafe\u{301}", "removed caf\u{E9}"])
    }

    @Test func aTypeChangeIsAChange() {
        #expect(Self.paths(StudioTree.diff(["n": 1], ["n": "1"])) == ["changed n"])
        #expect(StudioTree.diff(["d": .data([1, 2])], ["d": .data([1, 2])]).isEmpty)
    }

    /// The HTTP layer's codec, which the studio shares (`PathSegment`, HangarHummingbird's).
    @Test func aKeyIsOnePercentEncodedSegment() throws {
        #expect(PathSegment.encoded("a/b c%") == "a%2Fb%20c%25")
        #expect(PathSegment.encoded("caf\u{E9}") == "caf%C3%A9")
        #expect(PathSegment.encoded("cafe\u{301}") == "cafe%CC%81")
        #expect(try PathSegment.decoded("a%2Fb", what: "key") == "a/b")
        #expect(throws: HangarHTTPError.self) { try PathSegment.decoded("a%00b", what: "key") }
    }
}
