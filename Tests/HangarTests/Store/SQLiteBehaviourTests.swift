import Hangar
import StoreBehaviour
import Testing

/// The behavioural suite every engine passes, on the SQLite store (a new file each time; a second instance is a
/// second `Store` on the same file).
@Suite struct SQLiteBehaviourTests {
    static let behaviour = StoreBehaviour<Store>(
        engine: "sqlite",
        makeStore: { configuration in
            try Store(path: try temporaryDirectory() + "/store.sqlite", configuration: configuration)
        },
        reopen: { store, configuration in try Store(path: store.path, configuration: configuration) })

    @Test(arguments: Behaviour.allCases)
    func behaves(_ behaviour: Behaviour) async throws {
        try await Self.behaviour.check(behaviour)
    }
}
