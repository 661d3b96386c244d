import Hangar
import HangarSQLite
import HangarTestSupport
import StoreBehaviour
import Testing

/// The behavioural suite every engine passes, on the SQLite store (a new file each time; a second instance is a
/// second `SQLiteStore` on the same file).
@Suite struct SQLiteBehaviourTests {
    static let behaviour = StoreBehaviour<SQLiteStore>(
        engine: "sqlite",
        makeStore: { configuration in
            try SQLiteStore(path: try temporaryDirectory() + "/store.sqlite", store: configuration)
        },
        reopen: { store, configuration in try SQLiteStore(path: store.path, store: configuration) })

    @Test(arguments: Behaviour.allCases)
    func behaves(_ behaviour: Behaviour) async throws {
        try await Self.behaviour.check(behaviour)
    }
}
