import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// `hangar db …`: manage a Hangar store file.
struct DB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract:
            "Manage a Hangar store: list, get, put, delete, history, export, import, check, back up, changes.",
        subcommands: [
            DBList.self, DBGet.self, DBPut.self, DBRemove.self, DBHistory.self, DBExport.self, DBImport.self,
            DBCheck.self, DBBackup.self, DBChanges.self,
        ]
    )
}

/// The `--db PATH` option every `db` command takes.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file.")
    var db: String

    /// Opens the store; unless `creating`, a missing file is an error rather than a new empty store.
    func open(creating: Bool = false) throws(FileFailure) -> Store {
        if !creating && !FileManager.default.fileExists(atPath: db) {
            throw FileFailure(path: db, reason: "No such store")
        }
        do {
            return try Store(path: db)
        } catch {
            throw FileFailure(path: db, reason: error.description)
        }
    }

    /// `STORE: what` for a store, collection, key or revision that is not there.
    func notFound(_ what: String) -> FileFailure {
        FileFailure(path: db, reason: what)
    }

    /// A store error as the one-line `STORE: reason`.
    func failure(_ error: any Error) -> FileFailure {
        FileFailure(path: db, reason: String(describing: error))
    }
}

/// The `COLLECTION KEY` arguments of the commands about one document.
struct DocumentArguments: ParsableArguments {
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The key.") var key: String
}

/// The file formats `db get` and `db export` write.
enum StoreFileFormat: String, ExpressibleByArgument, CaseIterable {
    case binary1, xml1

    var format: PropertyListFormat { self == .binary1 ? .binary : .xml }
}

/// Runs `body` against an open store, turning any store error into `STORE: reason` and exit status 1.
func withStore(_ option: StoreOption, creating: Bool = false, _ body: (Store) throws -> Void) throws {
    try reportingFailures {
        let store = try option.open(creating: creating)
        do {
            try body(store)
        } catch let failure as FileFailure {
            throw failure
        } catch {
            throw option.failure(error)
        }
    }
}
