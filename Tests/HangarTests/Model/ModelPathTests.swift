import Hangar
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
    ])
    func quotesKeysThatAreNotPlainIdentifiers(key: String, rendered: String) {
        #expect(ModelPath.root.appending(key: key).description == rendered)
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
