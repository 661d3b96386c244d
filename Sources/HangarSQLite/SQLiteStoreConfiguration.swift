public import Hangar

/// How a store in a SQLite file is opened: the file, what a commit waits for, how long a writer waits for
/// another process, how many readers read at once, which collections are mirrored to files, and the Hangar
/// ``StoreConfiguration`` it carries (registry, collection options, retention, encryption, observability).
///
/// ```swift
/// var configuration = SQLiteStoreConfiguration(path: SQLiteStore.defaultPath(application: "Pilots"))
/// configuration.synchronous = .normal
/// configuration.mirrors["pilots"] = "/srv/pilots/mirror"
/// let store = try SQLiteStore(configuration: configuration)
/// ```
public struct SQLiteStoreConfiguration: Sendable {
    /// SQLite's `synchronous` setting: what a commit waits for.
    public enum Synchronous: String, Sendable {
        /// Every commit is on disk before `write` returns, even after a power loss. The default.
        case full = "FULL"
        /// A commit survives a crash of the program; a power loss may lose the last commits (never corrupts).
        case normal = "NORMAL"
    }

    /// The file, `":memory:"` for a private store in memory, or a SQLite `file:` URI.
    public var path: String
    /// The Hangar configuration: access, registry, collections, retention, encryption, observability.
    public var store: StoreConfiguration
    /// What a commit waits for; `.full` by default.
    public var synchronous: Synchronous = .full
    /// How long a writer waits for another process's write lock before failing, in milliseconds; 5 s by default.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// How many read-only connections may read at once (file stores; in-memory stores read on the writer); 4 by
    /// default.
    public var maximumReaders: Int = 4
    /// The collections mirrored to files, by name, and the folder of each: a mirrored collection's documents are
    /// kept as `folder/<key>.plist` (binary, written atomically). The mirror follows the change feed from a cursor
    /// kept in the store, after every commit that changes the collection, on ``SQLiteStore/retryMirrors()`` and on
    /// open; a delete removes the file. Files it cannot write are retried and reported
    /// (``SQLiteStore/mirrorFailures()``), never thrown from the committed `write`.
    public var mirrors: [String: String] = [:]
    /// Told when a mirror file could not be written (the save is committed; the store retries later). The
    /// failure is also logged as a warning; when this is `nil` and no logger was set (the default logger drops
    /// every record), a line goes to standard error instead.
    public var mirrorFailureHandler: (@Sendable (HangarError) -> Void)?
    /// The name of a registered SQLite VFS to open the database with (`nil`: SQLite's default); for tests that
    /// inject file system faults.
    package var vfs: String?

    /// A configuration for the store at `path`, carrying `store`.
    public init(path: String, store: StoreConfiguration = StoreConfiguration()) {
        self.path = path
        self.store = store
    }

    /// Seals every body saved and opens every sealed body read: the carried ``store``'s
    /// `StoreConfiguration.encryption`, here for convenience.
    public var encryption: (any DocumentEncryption)? {
        get { store.encryption }
        set { store.encryption = newValue }
    }

    /// Whether the store may be written: the carried ``store``'s `StoreConfiguration.access`.
    public var access: StoreConfiguration.Access {
        get { store.access }
        set { store.access = newValue }
    }
}
