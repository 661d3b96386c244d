import Hangar
import HangarSQLite
import HangarTestSupport
import StoreBehaviour
import Testing

/// The behavioural suite every engine passes, on the SQLite store (a new file each time; a second instance is a
/// second `SQLiteStore` on the same file; another process, `hangar-stress`).
@Suite struct SQLiteBehaviourTests {
    static let behaviour = StoreBehaviour<SQLiteStore>(
        engine: "sqlite",
        makeStore: { configuration in
            try SQLiteStore(path: try temporaryDirectory() + "/store.sqlite", store: configuration)
        },
        reopen: { store, configuration in try SQLiteStore(path: store.path, store: configuration) },
        writeElsewhere: { store, saves in
            // A child process writing the same file (`hangar-stress live-writes`): its commits reach this process's
            // followers as other processes' do.
            let directory = try temporaryDirectory()
            let child = try ChildProcess(
                ["live-writes", store.path] + saves.map { "\($0.key)=\($0.hours)" },
                stderrPath: directory + "/stderr.txt")
            let status = child.waitForExit()
            guard status == 0 else { throw ChildFailure(description: "live-writes: \(child.standardError)") }
        })

    @Test(arguments: Behaviour.allCases)
    func behaves(_ behaviour: Behaviour) async throws {
        try await Self.behaviour.check(behaviour)
    }
}

struct ChildFailure: Error, CustomStringConvertible {
    let description: String
}
