import Hangar
import PropertyList
import Testing

/// What `ModelReadTrace` records while a model reads: the source of every reader-given shape.
@Suite struct ModelReadTraceTests {
    static func paths(_ reads: [ModelRead]) -> [String] {
        reads.map { read in
            read.path.map { step -> String in
                switch step {
                case .key(let key): "." + key.string
                case .element: "[]"
                case .anyKey: "[*]"
                case .tag(let tag): "<" + tag.string + ">"
                }
            }.joined() + (read.isRequired ? " required" : " optional")
        }
    }

    @Test func readsAreRecordedWithTheirPathsPresenceAndTags() throws {
        let value = ClassRegistry.notes.encode(Note<V1_1>.groceries)
        let (_, reads) = try ModelReadTrace.recording { () throws(HangarError) in
            try ClassRegistry.notes.decode(Note<V1_1>.self, from: value)
        }
        let paths = Self.paths(reads)
        for expected in [
            ".title required", ".body optional", ".pinned optional", ".attachments optional",
            ".attachments[] required", ".attachments[]<Image>.width required", ".attachments[]<Link>.url required",
            ".attachments[]<Link>.name required",
        ] {
            #expect(paths.contains(expected), "\(expected) in \(paths)")
        }
        let tags = reads.first { $0.allowedTags != nil }?.allowedTags?.map(\.tag.string)
        #expect(tags == ["Attachment", "Image", "Link"])
    }

    @Test func aRowTakenWholeIsReadWhereItSits() throws {
        struct Rows: PropertyListRepresentable {
            var minutes: [Int]
            init(propertyList: PropertyList) throws(HangarError) {
                let rows: [PropertyList] = try DictionaryReader(propertyList).read("entries")
                minutes = try rows.map { (row) throws(HangarError) in try DictionaryReader(row).read("minutes") }
            }
            var propertyListRepresentation: PropertyList { [:] }
        }
        let value: PropertyList = ["entries": [["minutes": 55], ["minutes": 95]]]
        let (_, reads) = try ModelReadTrace.recording { () throws(HangarError) in try Rows(propertyList: value) }
        #expect(Self.paths(reads).contains(".entries[].minutes required"), "\(Self.paths(reads))")
        #expect(!Self.paths(reads).contains(".minutes required"))
    }

    @Test func nothingIsRecordedOutsideATrace() throws {
        let value = ClassRegistry.notes.encode(Note<V1_1>.groceries)
        _ = try ClassRegistry.notes.decode(Note<V1_1>.self, from: value)
        let (_, reads) = ModelReadTrace.recording { 1 }
        #expect(reads.isEmpty)
    }
}
