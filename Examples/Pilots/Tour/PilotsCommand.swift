import ArgumentParser
import Foundation
import Hangar
import HangarSQLite

/// `swift run pilots`: the Pilots example end to end, as a short tour of Hangar on an embedded SQLite file, or
/// on a PostgreSQL database with `--url`.
@main
struct PilotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pilots",
        abstract: "A tour of Hangar: pilots and their airplanes, saved, migrated, versioned and exported.",
        discussion: """
            Runs ten steps on a SQLite store (by default in the platform's data folder, \
            \(SQLiteStore.defaultPath(application: TourDefaults.application))) and writes exported .plist files into \
            an `exports` folder beside it. With --url postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, runs the \
            same steps on PostgreSQL, in the schema `hangar` (or --schema NAME), writing the files into an \
            `exports-SCHEMA` folder in that data folder. Running it again on the same store is fine.
            """
    )

    @Option(help: "The store file. Default: the platform's data folder for HangarPilots.")
    var db: String?

    @Option(help: "A PostgreSQL store instead: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var url: String?

    @Option(help: "With --url: the schema the tour's tables live in. Default: the URL's `schema`, else hangar.")
    var schema: String?

    @Flag(help: "Delete the store file first and start from nothing (SQLite).")
    var fresh = false

    @Option(help: "The folder of frozen Pilots documents. Default: Migrations/Pilots in this repository.")
    var migrations: String?

    @Option(help: "The folder exported files and the backup go to. Default: beside the store, as above.")
    var exports: String?

    func validate() throws {
        if db != nil && url != nil { throw ValidationError("Give --db PATH or --url URL, not both.") }
        if schema != nil && url == nil {
            throw ValidationError("--schema names a PostgreSQL schema: use it with --url.")
        }
        if fresh && url != nil {
            throw ValidationError("--fresh deletes a SQLite file; on PostgreSQL, pass a new --schema instead.")
        }
    }

    func run() async throws {
        guard let frozen = TourFiles.migrationsDirectory(override: migrations) else {
            printError(
                "pilots: cannot find Migrations/Pilots/1.0/ada.plist; run from the repository, or pass --migrations DIR"
            )
            throw ExitCode(1)
        }
        let engine: TourEngine
        if let url {
            engine = .postgres(url: url, schema: schema)
        } else {
            engine = .sqlite(path: db ?? SQLiteStore.defaultPath(application: TourDefaults.application))
        }
        do {
            if fresh, case .sqlite(let path) = engine { try TourFiles.removeStore(at: path) }
            try await engine.runTour(migrationsDirectory: frozen, exports: exports, fresh: fresh)
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("pilots: \(error)")
            throw ExitCode(1)
        }
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
