import Foundation
public import Hangar
import HangarSQLite
import PropertyList
public import Testing

/// One behavioural suite for every engine: each test target runs ``Behaviour/allCases`` against the stores
/// its engine makes (the SQLite store in HangarSQLiteTests, the PostgreSQL store in HangarPostgresTests), so the
/// engines are held to one behaviour by the same assertions.
///
/// ```swift
/// @Test(arguments: Behaviour.allCases)
/// func behaves(_ behaviour: Behaviour) async throws {
///     try await StoreBehaviour(engine: "sqlite") { try SQLiteStore(path: …, store: $0) }.check(behaviour)
/// }
/// ```
public struct StoreBehaviour<Engine: DocumentStore>: Sendable {
    /// The engine's name, for messages.
    public let engine: String
    /// Opens a fresh, empty store with a configuration; every call a new one.
    public let makeStore: @Sendable (StoreConfiguration) async throws -> Engine
    /// Opens a second store on the same database as `store` (another instance of an app), with a configuration.
    public let reopen: @Sendable (Engine, StoreConfiguration) async throws -> Engine
    /// Closes a store the suite opened.
    public let close: @Sendable (Engine) async -> Void
    /// Saves documents of ``liveCollection`` (`key`, `hours`: ``liveDocument(hours:)``) into `store`'s database from
    /// another process, returning once they are committed; `nil`: from a second instance (``reopen``).
    public let writeElsewhere: (@Sendable (_ store: Engine, _ saves: [(key: String, hours: Int)]) async throws -> Void)?

    /// A suite for an engine.
    public init(
        engine: String,
        makeStore: @escaping @Sendable (StoreConfiguration) async throws -> Engine,
        reopen: @escaping @Sendable (Engine, StoreConfiguration) async throws -> Engine,
        close: @escaping @Sendable (Engine) async -> Void = { await $0.close() },
        writeElsewhere: (@Sendable (_ store: Engine, _ saves: [(key: String, hours: Int)]) async throws -> Void)? = nil
    ) {
        self.writeElsewhere = writeElsewhere
        self.engine = engine
        self.makeStore = makeStore
        self.reopen = reopen
        self.close = close
    }

    /// Runs one behaviour on a fresh store (or two).
    public func check(_ behaviour: Behaviour) async throws {
        switch behaviour {
        case .savesAndRevisions: try await savesAndRevisions()
        case .expectedRevisionConflicts: try await expectedRevisionConflicts()
        case .multiDocumentTransactions: try await multiDocumentTransactions()
        case .historyAndRetention: try await historyAndRetention()
        case .deleteAndRestore: try await deleteAndRestore()
        case .newerMajorRefusedAndUntouched: try await newerMajorRefusedAndUntouched()
        case .newerMinorKeysKept: try await newerMinorKeysKept()
        case .quarantine: try await quarantine()
        case .migrateOnReadAndBulkUpgrade: try await migrateOnReadAndBulkUpgrade()
        case .bulkUpgradeFromTwoInstances: try await bulkUpgradeFromTwoInstances()
        case .classTagQueries: try await classTagQueries()
        case .keyOrderAndPaging: try await keyOrderAndPaging()
        case .indexesWithExactValues: try await indexesWithExactValues()
        case .uniqueIndexes: try await uniqueIndexes()
        case .changeFeed: try await changeFeed()
        case .followingAcrossInstances: try await followingAcrossInstances()
        case .changeRetention: try await changeRetention()
        case .exportAndImport: try await exportAndImport()
        case .updateWithRetries: try await updateWithRetries()
        case .reservedKeysAndNames: try await reservedKeysAndNames()
        case .encryptedBodies: try await encryptedBodies()
        case .tamperedBodiesQuarantined: try await tamperedBodiesQuarantined()
        case .rotationUnderWriters: try await rotationUnderWriters()
        case .sealedExportAndImport: try await sealedExportAndImport()
        case .readOnlyRefusesEveryWrite: try await readOnlyRefusesEveryWrite()
        case .deleteOfANewerMajorRefused: try await deleteOfANewerMajorRefused()
        case .exportsHonourPermissions: try await exportsHonourPermissions()
        case .restoreOverANewerMajorRefused: try await restoreOverANewerMajorRefused()
        case .singleWritesKeepTheRules: try await singleWritesKeepTheRules()
        case .compoundIndexOrder: try await compoundIndexOrder()
        case .keysetPagesAndCursors: try await keysetPagesAndCursors()
        case .compoundIndexLifecycle: try await compoundIndexLifecycle()
        case .indexQueriesAgainstAModel: try await indexQueriesAgainstAModel()
        case .pagingUnderConcurrentWriters: try await pagingUnderConcurrentWriters()
        case .liveQueries: try await liveQueries()
        case .ownedKeysFromTheOwnersIndex: try await ownedKeysFromTheOwnersIndex()
        case .indexQueriesInAnOwnersScope: try await indexQueriesInAnOwnersScope()
        case .tokenedPointReads: try await tokenedPointReads()
        }
    }

    /// Opens a store, runs `body`, closes it whatever happens.
    func withStore<Result>(
        _ configuration: StoreConfiguration = Self.configuration(), _ body: (Engine) async throws -> Result
    ) async throws -> Result {
        let store = try await makeStore(configuration)
        do {
            let result = try await body(store)
            await close(store)
            return result
        } catch {
            await close(store)
            throw error
        }
    }

    /// The configuration most behaviours use: the notes collection keeps all history, the feed keeps all.
    static func configuration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.changeRetention = .keepAll
        return configuration
    }
}

/// The behaviours every engine has; a test target runs them all (`@Test(arguments: Behaviour.allCases)`).
public enum Behaviour: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case savesAndRevisions, expectedRevisionConflicts, multiDocumentTransactions, historyAndRetention
    case deleteAndRestore, newerMajorRefusedAndUntouched, newerMinorKeysKept, quarantine
    case migrateOnReadAndBulkUpgrade, bulkUpgradeFromTwoInstances, classTagQueries, keyOrderAndPaging
    case indexesWithExactValues, uniqueIndexes, changeFeed, followingAcrossInstances, changeRetention
    case exportAndImport, updateWithRetries, reservedKeysAndNames
    case encryptedBodies, tamperedBodiesQuarantined, rotationUnderWriters, sealedExportAndImport
    case readOnlyRefusesEveryWrite, deleteOfANewerMajorRefused, exportsHonourPermissions
    case restoreOverANewerMajorRefused, singleWritesKeepTheRules
    case compoundIndexOrder, keysetPagesAndCursors, compoundIndexLifecycle, indexQueriesAgainstAModel
    case pagingUnderConcurrentWriters, liveQueries, ownedKeysFromTheOwnersIndex, indexQueriesInAnOwnersScope
    case tokenedPointReads

    public var testDescription: String { rawValue }
}

/// What a behaviour throws to fail a test with a reason beyond its expectations.
struct BehaviourFailure: Error, CustomStringConvertible {
    let description: String
}

/// A small versioned document: v1 stored `text`; v2 calls it `body`; v2.1 added `tags`.
struct Memo: VersionedDocument, Equatable, Sendable {
    static let collection = "memos"
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
    var count: Int = 0

    init(title: String, body: String = "", tags: [String] = [], count: Int = 0) {
        self.title = title
        self.body = body
        self.tags = tags
        self.count = count
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        title = try reader.read("title")
        body = try reader.read("body")
        tags = try reader.readIfPresent("tags") ?? []
        count = try reader.readIfPresent("count") ?? 0
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("title", title)
        writer.set("body", body)
        writer.set("tags", tags.isEmpty ? nil : tags)
        writer.set("count", count)
        return writer.propertyList
    }

    /// An envelope as an app of another version wrote it.
    static func envelope(major: Int, minor: Int, _ content: PropertyList.Dictionary) -> PropertyList {
        var content = content
        content["majorVersion"] = .integer(.init(major))
        content["minorVersion"] = .integer(.init(minor))
        return .dictionary(content)
    }
}
