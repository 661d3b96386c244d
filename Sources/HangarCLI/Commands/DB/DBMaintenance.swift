import ArgumentParser
import Foundation
import Hangar

/// `hangar db check (--db PATH | --url URL)`
struct DBCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store's integrity and its mirror files: prints `ok`, or the problems and exits 1.",
        discussion: "Every document of every collection is read; one whose stored envelope cannot be read is "
            + "listed as `document not readable: COLLECTION/KEY: REASON`. A SQLite store (--db) also gets "
            + "SQLite's integrity check, and a mirror file a committed save could not write, or that its mirror has "
            + "not caught up with yet, is listed as `mirror not updated: FILE (COLLECTION/KEY): REASON`; the store "
            + "writes it on its next mirror pass.")

    @OptionGroup var store: StoreOption

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in
            let problems = try await Self.problems(in: opened)
            let lines = problems.isEmpty ? ["ok"] : problems
            for line in lines { print(line) }
            guard problems.isEmpty else { throw ExitCode(1) }
        }
    }

    /// Every problem `check` finds, one line each: SQLite's and the mirror files' for a SQLite store, then
    /// the unreadable documents on every engine. Empty for a sound store.
    static func problems(in opened: OpenedStore) async throws -> [String] {
        let problems = try opened.sqlite.map(sqliteProblems) ?? []
        return problems + (try await unreadableDocuments(in: opened.store))
    }

    /// What SQLite's integrity check finds (nothing when it says `ok`), then the mirror files not updated.
    private static func sqliteProblems(_ store: Store) throws -> [String] {
        var lines = try store.checkIntegrity()
        if lines == ["ok"] { lines = [] }
        for mirror in try store.mirrorFailures() {
            lines.append("mirror not updated: \(mirror.path) (\(mirror.collection)/\(mirror.key)): \(mirror.reason)")
        }
        return lines
    }

    /// A `document not readable: COLLECTION/KEY: REASON` line for each document, of every collection, whose
    /// stored envelope does not decode; one read transaction a collection.
    private static func unreadableDocuments<S: DocumentStore>(in store: S) async throws -> [String] {
        let collections = try await store.read { try await $0.collections() }
        var lines: [String] = []
        for collection in collections {
            lines += try await store.read { transaction in
                var lines: [String] = []
                for key in try await transaction.keys(in: collection) {
                    do throws(HangarError) {
                        guard let stored = try await transaction.document(in: collection, key: key) else { continue }
                        _ = try DocumentRules.envelopeVersion(try stored.envelope(), collection: collection, key: key)
                    } catch {
                        lines.append("document not readable: \(error)")
                    }
                }
                return lines
            }
        }
        return lines
    }
}

/// `hangar db backup --db PATH DEST`
struct DBBackup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a SQLite store, consistently, to a new file (safe while it is in use).",
        discussion: "A PostgreSQL store (--url) is backed up with pg_dump instead.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The file to write.") var destination: String

    /// Why a store on another engine is not backed up here.
    static let notSQLite = "backup copies SQLite stores; back up a PostgreSQL database with pg_dump"

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try backUp(opened) }
    }

    /// Copies a SQLite store; another engine's is a one-line error.
    func backUp(_ opened: OpenedStore) throws {
        guard let sqlite = opened.sqlite else { throw FileFailure(path: opened.name, reason: Self.notSQLite) }
        try sqlite.backup(to: destination)
    }
}
