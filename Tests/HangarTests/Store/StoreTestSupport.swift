import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

@testable import HangarSQLite

/// A small versioned document for store tests. v1 stored `text`; v2 calls it `body`. v2.1 added `tags`.
struct Note: VersionedDocument, Equatable, Sendable {
    static let collection = "notes"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 1),
        oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "rename text to body") { content in
                var content = content
                content["body"] = content.removeValue(forKey: "text")
                return content
            }
        ])

    var title: String
    var body: String
    var tags: [String] = []
    var priority: Int = 0

    init(title: String, body: String, tags: [String] = [], priority: Int = 0) {
        self.title = title
        self.body = body
        self.tags = tags
        self.priority = priority
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        title = try reader.read("title")
        body = try reader.read("body")
        tags = try reader.readIfPresent("tags") ?? []
        priority = try reader.readIfPresent("priority") ?? 0
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("title", title)
        writer.set("body", body)
        writer.set("tags", tags.isEmpty ? nil : tags)
        writer.set("priority", priority)
        return writer.propertyList
    }
}

/// The two backends every store test body runs on: in memory, and a real SQLite file.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, file

    var testDescription: String { rawValue }

    /// A store on this backend with `configuration`, its `collection` mirrored to `mirror` when given.
    func makeStore(
        _ configuration: StoreConfiguration = StoreConfiguration(), mirroring mirror: String? = nil,
        collection: String = "notes", mirrorFailures: @escaping @Sendable (HangarError) -> Void = { _ in }
    ) throws -> SQLiteStore {
        let path =
            switch self {
            case .memory: ":memory:"
            case .file: try temporaryDirectory() + "/store.sqlite"
            }
        return try SQLiteStore(
            configuration: sqliteConfiguration(
                path, configuration, mirroring: mirror, collection: collection, mirrorFailures: mirrorFailures))
    }
}

/// The SQLite configuration of the store at `path` carrying `store`, its `collection` mirrored to `mirror` (with
/// failures told to `mirrorFailures`) when given.
func sqliteConfiguration(
    _ path: String, _ store: StoreConfiguration = StoreConfiguration(), mirroring mirror: String?,
    collection: String = "notes", mirrorFailures: @escaping @Sendable (HangarError) -> Void = { _ in }
) -> SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration(path: path, store: store)
    if let mirror {
        configuration.mirrors[collection] = mirror
        configuration.mirrorFailureHandler = mirrorFailures
    }
    return configuration
}

func temporaryDirectory() throws -> String {
    try ScratchFolders.make("hangar-store")
}

func noteConfiguration(_ options: CollectionOptions = CollectionOptions()) -> StoreConfiguration {
    var configuration = StoreConfiguration()
    configuration.collections["notes"] = options
    return configuration
}

/// What tests that turn a store back into an older schema version undo of the later steps.
enum StoreSchemaDowngrade {
    /// Undoes step 5 (the key id of each body, for encryption at rest).
    static let dropKeyIDs = "ALTER TABLE documents DROP COLUMN key_id; ALTER TABLE history DROP COLUMN key_id;"
}
