import Foundation
import Hangar
import HangarEncryption
import HangarPostgres
import HangarSQLite

/// A store a `db` command opened: the engine-neutral store every verb works on, and the SQLite ``SQLiteStore``
/// when it is one, for what only SQLite does (its integrity check, mirror files, backups).
struct OpenedStore: Sendable {
    /// The store, on whichever engine.
    let store: any DocumentStore
    /// The same store when it is a SQLite file; `nil` on another engine.
    let sqlite: SQLiteStore?
    /// How error lines name the store: its path, or its URL without the password.
    let name: String
    /// The `--url` the store was opened with, whose password no error line may repeat.
    var url: String?

    /// Closes the store (its connections, on every engine).
    func close() async {
        await store.close()
    }

    /// A store error as the one-line `STORE: reason`; an engine's words that repeat the URL or its password
    /// have them left out.
    func failure(_ error: any Error) -> FileFailure {
        Self.failure(error, name: name, url: url)
    }

    /// `error` as the one-line `NAME: reason`, without `url` or its password.
    static func failure(_ error: any Error, name: String, url: String?) -> FileFailure {
        let reason = String(describing: error)
        return FileFailure(path: name, reason: url.map { StoreURL.redacting(reason, url: $0) } ?? reason)
    }
}

/// The one place a `db` command opens its store: a SQLite file for `--db PATH` (unless `creating`, a missing
/// file is an error rather than a new empty store), a database server's for `--url URL`.
///
/// The verbs that only read (`readOnly`) open a SQLite file read-only, so they work on a read-only file or file
/// system and change nothing; a store whose schema is older than this Hangar's is opened for writing instead,
/// which upgrades it, as every verb did before.
func openStore(_ option: StoreOption, creating: Bool, readOnly: Bool = false, oldKeyFiles: [String] = [])
    async throws -> OpenedStore
{
    let encryption = try storeEncryption(keyFile: option.keyFilePath, oldKeyFiles: oldKeyFiles)
    if let url = option.url {
        let name = StoreURL.displayName(of: url)
        let scheme = try StoreURL.scheme(of: url)
        guard StoreURL.postgresSchemes.contains(scheme.lowercased()) else {
            throw FileFailure(
                path: name,
                reason: "Unknown store URL scheme \"\(scheme)\" (use postgres:// or postgresql://, or --db PATH)")
        }
        do {
            let store = try await openPostgresStore(
                url: url, replicas: option.replicaURLs, listenURL: option.listenURL, encryption: encryption)
            return OpenedStore(store: store, sqlite: nil, name: name, url: url)
        } catch let failure as FileFailure {
            throw failure
        } catch {
            throw OpenedStore.failure(error, name: name, url: url)
        }
    }
    let path = option.db ?? ""
    if !creating && !FileManager.default.fileExists(atPath: path) {
        throw FileFailure(path: path, reason: "No such store")
    }
    do {
        let store = try openSQLiteStore(at: path, readOnly: readOnly, encryption: encryption)
        return OpenedStore(store: store, sqlite: store, name: path)
    } catch {
        throw FileFailure(path: path, reason: error.description)
    }
}

/// The SQLite store at `path`, read-only when `readOnly` unless its schema needs an upgrade.
private func openSQLiteStore(at path: String, readOnly: Bool, encryption: (any DocumentEncryption)?)
    throws(HangarError) -> SQLiteStore
{
    var configuration = StoreConfiguration()
    configuration.encryption = encryption
    guard readOnly else { return try SQLiteStore(path: path, store: configuration) }
    var readOnlyConfiguration = configuration
    readOnlyConfiguration.access = .readOnly
    do {
        return try SQLiteStore(path: path, store: readOnlyConfiguration)
    } catch HangarError.readOnly {
        // An older schema: opening it for writing upgrades it (and says so if the file cannot be written).
        return try SQLiteStore(path: path, store: configuration)
    }
}

/// Opens the PostgreSQL store at `url` (its schema created or upgraded as needed), with `replicas` as its read
/// replicas (`--replica-url`) and `listenURL` for the change feed's `LISTEN` (`--listen-url`), waiting at most 5
/// seconds for a connection: a command facing an unreachable server says so soon. Error lines name the store as
/// ``StoreURL/displayName(of:)`` does, never with the password.
func openPostgresStore(
    url: String, replicas: [String] = [], listenURL: String? = nil, encryption: (any DocumentEncryption)? = nil
) async throws -> PostgresStore {
    var configuration = try PostgresStoreConfiguration(url: url, replicas: replicas, listenURL: listenURL)
    configuration.encryption = encryption
    configuration.acquireTimeout = .seconds(5)
    return try await PostgresStore(configuration: configuration)
}

/// The encryption a `db` command opens its store with: the key in `keyFile` (exactly 32 raw bytes), with the
/// keys of `oldKeyFiles` for reading; `nil` without a key file. A key file of another size, or one that cannot be
/// read, is a one-line error naming the file (never its contents).
func storeEncryption(keyFile: String?, oldKeyFiles: [String]) throws -> AESGCMEncryption? {
    guard let keyFile else {
        if let old = oldKeyFiles.first { throw FileFailure(path: old, reason: "An old key file needs --key-file") }
        return nil
    }
    var keys: [[UInt8]] = []
    for path in [keyFile] + oldKeyFiles {
        do {
            keys.append(try AESGCMEncryption.readKeyFile(path))
        } catch {
            throw FileFailure(path: path, reason: error.message)
        }
    }
    return try AESGCMEncryption(key: keys[0], oldKeys: Array(keys.dropFirst()))
}

/// Reading the `--url` of a store without ever repeating its password.
enum StoreURL {
    /// The schemes of a PostgreSQL store's URL.
    static let postgresSchemes: Set<String> = ["postgres", "postgresql"]

    /// `url` as error lines show it: `USER@HOST:PORT/DATABASE`, without the scheme, the password and the
    /// query (which may hold a password too). Text that is not a URL with a scheme and a host is not shown at
    /// all: `user:secret@host/db` reads as the scheme `user` and the path `secret@host/db`.
    static func displayName(of url: String) -> String {
        guard let components = URLComponents(string: url), components.scheme != nil, components.host != nil else {
            return "--url"
        }
        var name = components.percentEncodedUser.map { $0 + "@" } ?? ""
        name += components.percentEncodedHost ?? ""
        if let port = components.port { name += ":\(port)" }
        return name + components.percentEncodedPath
    }

    /// `text` without `url` (shown as ``displayName(of:)``) and without its password, in case an engine's
    /// error repeats either. A password shorter than 4 characters is left: blanking every occurrence of a
    /// letter or two would garble the line more than it would hide.
    static func redacting(_ text: String, url: String) -> String {
        var text = text.replacingOccurrences(of: url, with: displayName(of: url))
        guard let components = URLComponents(string: url) else { return text }
        for password in [components.percentEncodedPassword, components.password] {
            guard let password, password.count >= 4 else { continue }
            text = text.replacingOccurrences(of: password, with: "***")
        }
        return text
    }

    /// The scheme of `url`; a one-line error when it is not a URL with one.
    static func scheme(of url: String) throws(FileFailure) -> String {
        guard let components = URLComponents(string: url) else {
            throw FileFailure(path: "--url", reason: "Not a URL (it is not repeated here: it may hold a password)")
        }
        guard let scheme = components.scheme else {
            throw FileFailure(
                path: displayName(of: url), reason: "The store URL has no scheme (use postgres://, or --db PATH)")
        }
        return scheme
    }
}
