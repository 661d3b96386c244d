import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

@testable import HangarSQLite

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

/// What tests that turn a store back into an older schema version undo of the later steps.
enum StoreSchemaDowngrade {
    /// Undoes step 5 (the key id of each body, for encryption at rest).
    static let dropKeyIDs = "ALTER TABLE documents DROP COLUMN key_id; ALTER TABLE history DROP COLUMN key_id;"
}
