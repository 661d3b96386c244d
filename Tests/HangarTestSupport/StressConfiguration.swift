public import HangarSQLite

/// The SQLite store at `path` as `hangar-stress` opens it: ``stressConfiguration()``, at `synchronous` (nil: the
/// default level).
public func stressSQLiteConfiguration(path: String, synchronous: SQLiteStoreConfiguration.Synchronous? = nil)
    -> SQLiteStoreConfiguration
{
    var configuration = SQLiteStoreConfiguration(path: path, store: stressConfiguration())
    if let synchronous { configuration.synchronous = synchronous }
    return configuration
}

/// The configuration `hangar-stress` (Tests/Tools/hangar-stress) opens its store with, and the durability tests
/// reopen it with, on every engine: "ledger" keeps every revision, "recent" the last 2, "exports" the last 3.
public func stressConfiguration() -> StoreConfiguration {
    var configuration = StoreConfiguration()
    configuration.collections["ledger"] = CollectionOptions(history: .keepAll)
    configuration.collections["recent"] = CollectionOptions(history: .keepLast(2))
    configuration.collections["exports"] = CollectionOptions(history: .keepLast(3))
    return configuration
}
