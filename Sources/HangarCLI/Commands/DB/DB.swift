import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// `hangar db …`: manage a Hangar store, a SQLite file (`--db PATH`) or a database server's (`--url URL`).
struct DB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract:
            "Manage a Hangar store: list, get, put, delete, history, find, export, import, check, salvage, back up, changes, rekey, sync.",
        subcommands: [
            DBList.self, DBGet.self, DBPut.self, DBRemove.self, DBHistory.self, DBFind.self, DBExport.self,
            DBImport.self,
            DBCheck.self, DBSalvage.self, DBBackup.self, DBChanges.self, DBRekey.self, DBSync.self,
        ]
    )
}

/// The `--db PATH` or `--url URL` option every `db` command takes: exactly one of them.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (SQLite).") var db: String?
    @Option(
        name: .long,
        help: "The store's database instead of a file: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var url: String?
    @Option(
        name: .customLong("replica-url"),
        help: "A read replica of the --url database (a streaming standby); repeatable. Reads go to fit replicas.")
    var replicaURLs: [String] = []
    @Option(
        name: .customLong("listen-url"),
        help: "The primary's direct URL for the change feed's LISTEN, when --url goes through PgBouncer.")
    var listenURL: String?
    @Option(
        name: .long,
        help: "A file holding the store's 32-byte encryption key, raw (default: the file $HANGAR_KEY_FILE names).")
    var keyFile: String?

    /// The key file: `--key-file`, else the one `HANGAR_KEY_FILE` names; `nil` for a store without encryption.
    var keyFilePath: String? {
        keyFile ?? ProcessInfo.processInfo.environment["HANGAR_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        switch (db, url) {
        case (nil, nil): throw ValidationError("Name the store with --db PATH or --url URL.")
        case (.some, .some): throw ValidationError("Name the store with --db PATH or --url URL, not both.")
        case (.some, nil) where !replicaURLs.isEmpty: throw ValidationError("--replica-url needs --url.")
        case (.some, nil) where listenURL != nil: throw ValidationError("--listen-url needs --url.")
        default: break
        }
    }

    /// How error lines name the store: its path, or its URL without the password.
    var name: String { db ?? StoreURL.displayName(of: url ?? "") }

    /// `STORE: what` for a store, collection, key or revision that is not there.
    func notFound(_ what: String) -> FileFailure {
        FileFailure(path: name, reason: what)
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

/// Runs `body` against the opened store (unless `creating`, a missing SQLite file is an error rather than a
/// new empty store; when `readOnly`, a SQLite file is opened read-only), turning any store error into
/// `STORE: reason` and exit status 1. `oldKeyFiles` are read with the key file, for `rekey`.
func withStore(
    _ option: StoreOption, creating: Bool = false, readOnly: Bool = false, oldKeyFiles: [String] = [],
    _ body: (OpenedStore) async throws -> Void
) async throws {
    let opened = try await openStore(option, creating: creating, readOnly: readOnly, oldKeyFiles: oldKeyFiles)
    do {
        try await body(opened)
        await opened.close()
    } catch let failure as FileFailure {
        await opened.close()
        throw failure
    } catch let exit as ExitCode {
        await opened.close()
        throw exit
    } catch {
        await opened.close()
        throw opened.failure(error)
    }
}
