import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import PilotModels

/// What every run of the tour shares, whatever the engine.
enum TourDefaults {
    static let application = "HangarPilots"
    static let archive = "pilots-archive"

    /// The app's configuration: the Pilots registry, four earlier revisions kept per pilot, the pilots' indexes
    /// (``PilotModels/Pilot/queryIndexes``, step 11) and the migration observer feeding `migrations`.
    static func configuration(migrations: MigrationLog) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = ClassRegistry.pilots
        for collection in [Pilot.collection, archive] {
            configuration.collections[collection] = CollectionOptions(history: .keepLast(4), format: Pilot.format)
        }
        configuration.collections[Pilot.collection]?.indexes = Pilot.queryIndexes
        configuration.migrationObserver = { event in migrations.append(event) }
        return configuration
    }
}

/// The engine the tour runs on and how it opens its stores there: one tour body (``Tour``), two engines.
enum TourEngine {
    /// A SQLite file at `path`.
    case sqlite(path: String)
    /// A PostgreSQL database at `url`, in `schema` (else the URL's `schema` parameter, else `hangar`).
    case postgres(url: String, schema: String?)

    /// Opens the store and runs the tour on it, closing it afterwards. `exports` overrides where files go.
    func runTour(migrationsDirectory: String, exports: String?, fresh: Bool) async throws {
        let migrations = MigrationLog()
        let configuration = TourDefaults.configuration(migrations: migrations)
        switch self {
        case .sqlite(let path):
            let existed = FileManager.default.fileExists(atPath: path)
            let store = try SQLiteStore(path: path, store: configuration)
            print("Hangar Pilots tour")
            print("Store: \(TourFiles.display(path)) (\(existed ? "existing" : "new")\(fresh ? ", --fresh" : ""))")
            let tour = Tour(
                store: store, openAnother: { try SQLiteStore(path: path, store: $0) }, close: { _ in },
                migrationsDirectory: migrationsDirectory,
                exportsDirectory: exports ?? TourFiles.exportsDirectory(forStoreAt: path), migrations: migrations)
            try await tour.run()
        case .postgres(let url, let schema):
            let postgres = try Self.postgresConfiguration(url: url, schema: schema, store: configuration)
            let store = try await PostgresStore(configuration: postgres)
            let tour = Tour(
                store: store,
                openAnother: { try await PostgresStore(configuration: postgres.with(store: $0)) },
                close: { await $0.close() }, migrationsDirectory: migrationsDirectory,
                exportsDirectory: exports ?? TourFiles.exportsDirectory(forSchema: postgres.schema),
                migrations: migrations)
            do {
                let collections = try await store.read { try await $0.collections() }
                let existed = !collections.isEmpty
                print("Hangar Pilots tour")
                print(
                    "Store: PostgreSQL \(TourFiles.displayName(ofURL: url)), schema \(postgres.schema) "
                        + "(\(existed ? "existing" : "new"))")
                try await tour.run()
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    /// The PostgreSQL configuration: `schema` overriding the URL's, and 5 s at most to get a connection, so an
    /// unreachable server is reported soon.
    private static func postgresConfiguration(url: String, schema: String?, store: StoreConfiguration) throws
        -> PostgresStoreConfiguration
    {
        var configuration = try PostgresStoreConfiguration(url: url, schema: schema, store: store)
        configuration.acquireTimeout = .seconds(5)
        return configuration
    }
}

extension PostgresStoreConfiguration {
    /// The same server, schema and settings with another app's store configuration.
    fileprivate func with(store: StoreConfiguration) -> PostgresStoreConfiguration {
        var copy = self
        copy.store = store
        return copy
    }
}
