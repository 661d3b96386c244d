import ArgumentParser
import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarSyncHTTPClient

/// `hangar db sync --db PATH --remote URL [--token-file FILE] COLLECTION...` (or `--url URL` for a store on a
/// database server, and `--key-file FILE` for a store that encrypts at rest, as every `db` verb takes them).
struct DBSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Run one sync pass (pull, resolve, push) of an embedded store's collections with a server.",
        discussion: """
            Prints `synced COLLECTION: pulled N, pushed M, conflicts K` per collection and exits 0; on failure one \
            line `hangar: reason` and exit status 1. Every step commits locally with its checkpoint, so the \
            command is safe to kill at any moment and to run again. Conflicts are decided by the default \
            resolver (Documentation/Sync.md): a three-way merge of top-level keys when the sides do not overlap, \
            else the server's version, the local one kept in `_sync.conflicts/COLLECTION`; an edit wins over a \
            delete.
            """)

    @OptionGroup var store: StoreOption
    @Option(name: .long, help: "The sync server's base URL, e.g. http://127.0.0.1:8080.") var remote: String
    @Option(name: .long, help: "A file holding the bearer token sent to the server.") var tokenFile: String?
    @Argument(help: "The collections to sync.") var collections: [String]

    func validate() throws {
        if collections.isEmpty { throw ValidationError("Name at least one collection.") }
        for collection in collections where !SyncServer<SQLiteStore>.isSyncable(collection) {
            throw ValidationError("\"\(collection)\" is not a collection that syncs (names starting _sync are kept).")
        }
    }

    func run() async throws {
        guard let url = URL(string: remote), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else { throw FileFailure(path: "hangar", reason: "--remote must be an http:// or https:// URL") }
        let token = try tokenFile.map(Self.token(at:))
        let opened: OpenedStore
        do {
            opened = try await openStore(store, creating: true)
        } catch let failure as FileFailure {
            throw FileFailure(path: "hangar", reason: failure.description)
        }
        do {
            // async-http-client, not URLSession: FoundationNetworking ends the process when a connection is cut
            // inside an answer's head (swift-corelibs-foundation#5285).
            try await AsyncHTTPSyncTransport.withTransport(baseURL: url, token: token) { transport in
                try await sync(opened.store, through: transport)
            }
        } catch {
            await opened.close()
            // The reason names no password of a `--url`.
            throw FileFailure(path: "hangar", reason: opened.failure(error).reason)
        }
        await opened.close()
    }

    /// One pass of each collection between `local` and the server, a line each.
    private func sync(_ local: some DocumentStore, through transport: AsyncHTTPSyncTransport) async throws {
        let replica = SyncReplica(store: local, transport: transport)
        for collection in collections {
            let report = try await replica.sync(collection)
            print(
                "synced \(collection): pulled \(report.pulled), pushed \(report.pushed), conflicts \(report.conflicts)")
        }
    }

    /// The bearer token in `path`, without surrounding blanks and line breaks.
    static func token(at path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !text.isEmpty
        else { throw FileFailure(path: "hangar", reason: "\(path): cannot read a token from this file") }
        return text
    }
}
