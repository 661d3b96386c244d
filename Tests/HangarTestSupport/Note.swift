public import Hangar
public import PropertyList

/// A small versioned document for store tests. v1 stored `text`; v2 calls it `body`. v2.1 added `tags`.
public struct Note: VersionedDocument, Equatable, Sendable {
    public static let collection = "notes"
    public static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 1),
        oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "rename text to body") { content in
                var content = content
                content["body"] = content.removeValue(forKey: "text")
                return content
            }
        ])

    public var title: String
    public var body: String
    public var tags: [String] = []
    public var priority: Int = 0

    public init(title: String, body: String, tags: [String] = [], priority: Int = 0) {
        self.title = title
        self.body = body
        self.tags = tags
        self.priority = priority
    }

    public init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        title = try reader.read("title")
        body = try reader.read("body")
        tags = try reader.readIfPresent("tags") ?? []
        priority = try reader.readIfPresent("priority") ?? 0
    }

    public var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("title", title)
        writer.set("body", body)
        writer.set("tags", tags.isEmpty ? nil : tags)
        writer.set("priority", priority)
        return writer.propertyList
    }
}

/// A new scratch folder for a store test.
public func temporaryDirectory() throws -> String {
    try ScratchFolders.make("hangar-store")
}

/// A configuration whose `notes` collection has `options`.
public func noteConfiguration(_ options: CollectionOptions = CollectionOptions()) -> StoreConfiguration {
    var configuration = StoreConfiguration()
    configuration.collections["notes"] = options
    return configuration
}
