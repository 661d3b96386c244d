import Hangar
import PropertyList
import Testing

@Suite struct ModelPathTests {
    @Test func rendersKeysAndIndexesLikeSwift() {
        let path = ModelPath.root.appending(key: "objects").appending(index: 3).appending(key: "airplanes")
            .appending(index: 1).appending(key: "engineHours")
        #expect(path.description == "objects[3].airplanes[1].engineHours")
    }

    @Test func rootIsEmpty() {
        #expect(ModelPath.root.description == "")
        #expect(ModelPath.root.isRoot)
        #expect(!ModelPath.root.appending(index: 0).isRoot)
    }

    @Test func indexAtTheRootHasNoDot() {
        #expect(ModelPath.root.appending(index: 0).appending(key: "name").description == "[0].name")
    }

    @Test(arguments: [
        ("a.b", #"["a.b"]"#),
        ("with space", #"["with space"]"#),
        ("", #"[""]"#),
        ("9lives", #"["9lives"]"#),
        (#"say "hi""#, #"["say \"hi\""]"#),
        ("snake_case-and-dash", "snake_case-and-dash"),
        ("CF$UID", "CF$UID"),
        ("tab\there", #"["tab\there"]"#),
        ("nul\u{0}", #"["nul\u{0}"]"#),
    ])
    func quotesKeysThatAreNotPlainIdentifiers(key: String, rendered: String) {
        #expect(ModelPath.root.appending(key: key).description == rendered)
    }

    @Test func modelPathsAndCodecPathsRenderByOneRule() {
        let steps: [(ModelPath.Component, PropertyList.PathComponent)] = [
            (.key("objects"), .key("objects")), (.index(2), .index(2)), (.key("file name"), .key("file name")),
            (.key("CF$UID"), .key("CF$UID")),
        ]
        #expect(ModelPath(steps.map(\.0)).description == PropertyList.pathText(steps.map(\.1)))
        #expect(PropertyList.pathText(steps.map(\.1)) == #"objects[2]["file name"].CF$UID"#)
    }

    @Test func componentsAndAppendingContentsOf() {
        let outer = ModelPath([.key("pilots"), .index(2)])
        let inner = ModelPath([.key("airplanes"), .index(0)])
        let joined = outer.appending(contentsOf: inner)
        #expect(joined.components == [.key("pilots"), .index(2), .key("airplanes"), .index(0)])
        #expect(joined == ModelPath([.key("pilots"), .index(2), .key("airplanes"), .index(0)]))
        #expect(joined != outer)
    }

    @Test func equalPathsHashEqually() {
        let a = ModelPath.root.appending(key: "x").appending(index: 1)
        let b = ModelPath([.key("x"), .index(1)])
        #expect(Set([a, b]).count == 1)
    }
}
