import ArgumentParser
import Foundation
import Hangar
import HangarPostgres
import HangarSQLite

/// `hangar db check (--db PATH | --url URL)`
struct DBCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store's integrity and its mirror files: prints `ok`, or the problems and exits 1.",
        discussion: "Every document of every collection is read; one whose stored envelope cannot be read is "
            + "listed once as `document not readable: COLLECTION/KEY: REASON`. A SQLite store (--db) is read row "
            + "by row, so a damaged page costs only its own documents: SQLite's integrity check is summarized as "
            + "`damaged: …` lines (at most 20, then how many more), parts of the file that name no document as "
            + "`damaged: the rows of documents …: REASON`, and a mirror file a committed save could not write, or "
            + "that its mirror has not caught up with yet, as `mirror not updated: FILE (COLLECTION/KEY): REASON`; "
            + "the store writes it on its next mirror pass. `hangar db salvage` copies what still reads.")

    @OptionGroup var store: StoreOption

    func run() async throws {
        var problems: [String] = []
        if let path = store.db {
            guard FileManager.default.fileExists(atPath: path) else { throw store.notFound("No such store") }
            problems = try Self.sqliteProblems(path: path)
        } else {
            try await withStore(store, readOnly: true) { opened in
                problems = try await Self.problems(in: opened)
                // What the server's replication settings promise across a failover, before the verdict.
                if let postgres = opened.store as? PostgresStore {
                    for line in try await postgres.replicationReport() { print(oneLine(line)) }
                }
            }
        }
        for line in problems.isEmpty ? ["ok"] : problems { print(oneLine(line)) }
        guard problems.isEmpty else { throw ExitCode(1) }
    }

    /// Every problem `check` finds, one line each: a SQLite store's file read row by row
    /// (``sqliteProblems(path:)``); the unreadable documents on other engines. Empty for a sound store.
    static func problems(in opened: OpenedStore) async throws -> [String] {
        if let sqlite = opened.sqlite { return try sqliteProblems(path: sqlite.path) }
        return try await unreadableDocuments(in: opened.store)
    }

    /// How many of SQLite's integrity lines `check` prints before saying how many more there are.
    static let integrityLines = 20

    /// Every problem of the SQLite store file at `path`: SQLite's integrity check, the documents (read row by
    /// row, without opening the file as a store), then, for a file without damage, the mirror files owed.
    static func sqliteProblems(path: String) throws(FileFailure) -> [String] {
        var lines: [String]
        do throws(HangarError) {
            lines = integrityProblems(try SQLiteStore.checkIntegrity(path: path, limit: 1_000))
        } catch {
            guard error.code == .corrupt else { throw FileFailure(path: path, reason: error.description) }
            lines = ["damaged: SQLite's integrity check stopped: \(error.reason)"]
        }
        do throws(HangarError) {
            let survey = try SQLiteStore.survey(path: path)
            lines += survey.unreadable.map { "damaged: \($0)" }
            for document in survey.documents {
                guard let problem = document.problem else { continue }
                lines.append("document not readable: \(document.name): \(problem.reason)")
            }
        } catch {
            throw FileFailure(path: path, reason: error.description)
        }
        // A damaged file is not opened as a store: its mirrors wait for the salvage.
        guard !lines.contains(where: { $0.hasPrefix("damaged: ") }) else { return lines }
        do {
            var readOnly = StoreConfiguration()
            readOnly.access = .readOnly
            for mirror in try SQLiteStore(path: path, store: readOnly).mirrorFailures() {
                lines.append(
                    "mirror not updated: \(mirror.path) (\(mirror.collection)/\(mirror.key)): \(mirror.reason)")
            }
        } catch {
            lines.append("store not opened: \(error)")
        }
        return lines
    }

    /// SQLite's integrity lines as `damaged: …` lines: none for `ok`, the database header line left out, at
    /// most ``integrityLines``, then how many more.
    static func integrityProblems(_ integrity: [String]) -> [String] {
        let lines = integrity.filter { $0 != "ok" && !$0.hasPrefix("*** in database ") }
        var problems = lines.prefix(integrityLines).map { "damaged: \($0)" }
        if lines.count > integrityLines {
            let more = lines.count - integrityLines
            problems.append(
                "damaged: \(more) more \(more == 1 ? "problem" : "problems") SQLite's integrity check found")
        }
        return problems
    }

    /// A `document not readable: COLLECTION/KEY: REASON` line for each document, of every collection, whose
    /// stored envelope does not decode (``Hangar/DocumentStore/unreadableDocuments()``).
    static func unreadableDocuments<S: DocumentStore>(in store: S) async throws -> [String] {
        try await store.unreadableDocuments().map { "document not readable: \($0)" }
    }
}

/// `hangar db salvage (--db PATH | --url URL) DEST`
struct DBSalvage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvage",
        abstract: "Copy every document of a damaged store that still reads into a new SQLite store.",
        discussion: "A SQLite file (--db) is read row by row and never changed; a store on a server (--url) "
            + "through its own reads, a document at a time. Each document whose current revision reads is "
            + "copied as stored, with the earlier revisions of its history that read. Prints "
            + "`COLLECTION/KEY: REASON` for each document not copied, `damaged: …` for each part of the file that "
            + "names no document, then `salvaged N of M documents`. Exit status 0 when every document was "
            + "copied, 1 when some were lost. DEST must not exist.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The new store file to write (it must not exist).") var destination: String

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw FileFailure(path: destination, reason: "Already exists; salvage writes a new store")
        }
        var report = SalvageReport()
        var configuration = StoreConfiguration()
        configuration.encryption = try storeEncryption(keyFile: store.keyFilePath, oldKeyFiles: [])
        if let path = store.db {
            guard FileManager.default.fileExists(atPath: path) else { throw store.notFound("No such store") }
            do throws(HangarError) {
                report = try SQLiteStore.salvage(from: path, to: destination, configuration: configuration)
            } catch {
                throw FileFailure(path: error.code == .io ? destination : path, reason: error.description)
            }
        } else {
            let destination = destination
            try await withStore(store) { opened in
                report = try await SQLiteStore.salvage(
                    from: opened.store, to: destination, configuration: configuration)
            }
        }
        print(Self.lines(report).map(oneLine).joined(separator: "\n"))
        guard report.copied == report.found, report.unreadable.isEmpty else { throw ExitCode(1) }
    }

    /// What `salvage` prints: a line per document not copied, per part of the file that names none, the
    /// history revisions lost, and `salvaged N of M documents`.
    static func lines(_ report: SalvageReport) -> [String] {
        var lines = report.lost.map(\.description) + report.unreadable.map { "damaged: \($0)" }
        if report.historyRevisionsLost > 0 {
            let count = report.historyRevisionsLost
            lines.append(
                "damaged: \(count) earlier \(count == 1 ? "revision" : "revisions") in history could not be read")
        }
        return lines + ["salvaged \(report.copied) of \(report.found) documents"]
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
