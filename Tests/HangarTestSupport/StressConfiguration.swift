public import Hangar

/// The configuration `hangar-stress` (Tests/Tools/hangar-stress) opens its store with, and the durability tests
/// reopen it with: "ledger" keeps every revision, "recent" the last 2, "exports" the last 3. A nil `synchronous`
/// keeps `StoreConfiguration`'s default level.
public func stressConfiguration(synchronous: StoreConfiguration.Synchronous? = nil) -> StoreConfiguration {
    var configuration = StoreConfiguration()
    if let synchronous { configuration.synchronous = synchronous }
    configuration.collections["ledger"] = CollectionOptions(history: .keepAll)
    configuration.collections["recent"] = CollectionOptions(history: .keepLast(2))
    configuration.collections["exports"] = CollectionOptions(history: .keepLast(3))
    return configuration
}
