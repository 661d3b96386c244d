import ArgumentParser
import Foundation
import Hangar

/// `swift run pilots`: the Pilots example end to end, as a short tour of Hangar on an embedded SQLite file.
@main
struct PilotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pilots",
        abstract: "A tour of Hangar: pilots and their airplanes, saved, migrated, versioned and exported.",
        discussion: """
            Runs eight steps on a SQLite store (by default in the platform's data folder, \
            \(Store.defaultPath(application: Tour.application))) and writes exported .plist files into an \
            `exports` folder beside it. Running it again on the same store is fine.
            """
    )

    @Option(help: "The store file. Default: the platform's data folder for HangarPilots.")
    var db: String?

    @Flag(help: "Delete the store first and start from nothing.")
    var fresh = false

    @Option(help: "The folder of frozen Pilots documents. Default: Migrations/Pilots in this repository.")
    var migrations: String?

    func run() throws {
        let path = db ?? Store.defaultPath(application: Tour.application)
        guard let frozen = TourFiles.migrationsDirectory(override: migrations) else {
            printError(
                "pilots: cannot find Migrations/Pilots/pilot-v1.0.plist; run from the repository, or pass --migrations DIR"
            )
            throw ExitCode(1)
        }
        do {
            if fresh { try TourFiles.removeStore(at: path) }
            let tour = try Tour(storePath: path, migrationsDirectory: frozen, fresh: fresh)
            try tour.run()
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
