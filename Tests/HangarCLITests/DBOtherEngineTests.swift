import Foundation
import Hangar
import HangarSQLite
import Testing

@testable import HangarCLI

/// The SQLite store behind a type that is not `SQLiteStore`: what the `db` verbs see of another engine (the
/// PostgreSQL store is not built into `hangar` yet), so the parts only SQLite has are left out.
private struct OtherEngineStore: DocumentStore {
    let base: SQLiteStore

    var configuration: StoreConfiguration { base.configuration }

    func read<Result: Sendable>(_ body: (SQLiteReadTransaction) async throws -> Result) async throws -> Result {
        try await base.read(body)
    }

    func write<Result: Sendable>(_ body: (SQLiteWriteTransaction) async throws -> Result) async throws -> Result {
        try await base.write(body)
    }

    func follow(after sequence: Int, in collection: String?) -> ChangeFeed {
        base.follow(after: sequence, in: collection)
    }

    func close() async {
        await base.close()
    }
}

/// `db backup` and `db check` on a store that is not SQLite, in process.
@Suite struct DBOtherEngineTests {
    private static let name = "user@127.0.0.1:5432/hangar"

    private func opened(_ store: SQLiteStore) -> OpenedStore {
        OpenedStore(store: OtherEngineStore(base: store), sqlite: nil, name: Self.name)
    }

    @Test func backupRefusesAnotherEnginesStore() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let store = try SQLiteStore(path: directory + "/store.sqlite")
        let command = try DBBackup.parse(["--url", "postgres://user@127.0.0.1:5432/hangar", directory + "/copy"])
        let failure = try #require(throws: FileFailure.self) { try command.backUp(opened(store)) }
        #expect(
            failure.description
                == "\(Self.name): backup copies SQLite stores; back up a PostgreSQL database with pg_dump")
        #expect(!FileManager.default.fileExists(atPath: directory + "/copy"))
    }

    @Test func checkReadsEveryDocumentOnAnyEngine() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        let store = try SQLiteStore(path: db)
        try await store.write { transaction in
            for key in ["amelia", "bessie"] {
                try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: key, in: "pilots")
            }
            try transaction.save(envelope: ["majorVersion": 2, "minorVersion": 0], key: "electra", in: "planes")
        }
        #expect(try await DBCheck.problems(in: opened(store)) == [])
        // Damage one stored body behind the store's back (python3 is an interop peer CI installs).
        let damage = try CLI.runShell(
            "python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute(\\\"UPDATE documents SET body = X'00' WHERE key = 'electra'\\\"); c.commit()\" "
                + "'\(db)'")
        try #require(damage.status == 0, "\(damage.stderr)")
        let problems = try await DBCheck.problems(in: opened(store))
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix("document not readable: planes/electra: ") == true, "\(problems)")
        // The SQLite store itself: the same line, SQLite's integrity check finding nothing.
        #expect(
            try await DBCheck.problems(in: OpenedStore(store: store, sqlite: store, name: db)) == problems)
    }

    @Test func salvageCopiesAnotherEnginesStoreThroughItsReads() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        let store = try SQLiteStore(path: db)
        try await store.write { transaction in
            for revision in 1...3 {
                try transaction.save(
                    envelope: ["majorVersion": 1, "minorVersion": 0, "n": .integer(.init(revision))], key: "amelia",
                    in: "pilots")
            }
            try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "bessie", in: "pilots")
            try transaction.save(envelope: ["majorVersion": 2, "minorVersion": 0], key: "electra", in: "planes")
        }
        let damage = try CLI.runShell(
            "python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute(\\\"UPDATE documents SET body = X'00' WHERE key = 'bessie'\\\"); c.commit()\" "
                + "'\(db)'")
        try #require(damage.status == 0, "\(damage.stderr)")
        let copy = directory + "/copy.sqlite"
        let report = try await SQLiteStore.salvage(from: OtherEngineStore(base: store), to: copy)
        #expect(report.found == 3 && report.copied == 2 && report.lost.map(\.name.key) == ["bessie"])
        #expect(DBSalvage.lines(report).last == "salvaged 2 of 3 documents")
        let salvaged = try SQLiteStore(path: copy)
        let history = try await salvaged.read { try $0.history(in: "pilots", key: "amelia") }
        #expect(history.map(\.revision) == [1, 2, 3])
        let electra = try await salvaged.read { try $0.document(in: "planes", key: "electra") }
        #expect(electra?.version.major == 2)
    }

    @Test func anEnginesErrorLineLeavesTheURLAndPasswordOut() {
        struct EngineError: Error, CustomStringConvertible {
            var description: String
        }
        let url = "postgres://user:hunter22@127.0.0.1:5432/hangar"
        let error = EngineError(description: "cannot connect to \(url) (password hunter22 refused)")
        let failure = OpenedStore.failure(error, name: Self.name, url: url)
        #expect(failure.description == "\(Self.name): cannot connect to \(Self.name) (password *** refused)")
    }
}
