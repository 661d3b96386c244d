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

    /// How concurrent writes share a commit (group commit).
    ///
    /// A write that queues for the writer while another runs joins that one's transaction, in a savepoint of its
    /// own, and one `COMMIT` (one flush of the write-ahead log) ends the group: with `synchronous = FULL`, sixteen
    /// concurrent writers pay for about one flush, not sixteen. Nothing else changes: a write returns only once
    /// its group has committed (and survives a power loss as before), a write that throws leaves no trace and
    /// fails alone, a failing `COMMIT` fails every write of the group and leaves nothing of any, each write keeps
    /// its own change-feed transaction, in the order the writes ran, and a single writer never waits for company.
    /// One difference is visible: a write's body reads its own transaction, which holds the group's writes
    /// before it; a separate `read` it starts sees only what is committed.
    public struct GroupCommit: Sendable, Hashable {
        /// Whether writes share commits; when false every write commits on its own.
        public var isEnabled: Bool
        /// The most writes one group holds.
        public var maximumWrites: Int
        /// The document bytes after which a group takes no more writes (one large write does not hold others'
        /// latency hostage).
        public var maximumBytes: Int
        /// How long the last write of a group waits for another to join before committing; zero (the default)
        /// waits for none: only writes already queued join.
        public var window: Duration

        /// A policy; the defaults are the store's.
        public init(
            isEnabled: Bool = true, maximumWrites: Int = 64, maximumBytes: Int = 4 << 20, window: Duration = .zero
        ) {
            self.isEnabled = isEnabled
            self.maximumWrites = maximumWrites
            self.maximumBytes = maximumBytes
            self.window = window
        }

        /// Every write commits on its own.
        public static let off = GroupCommit(isEnabled: false)
    }

    /// The file, `":memory:"` for a private store in memory, or a SQLite `file:` URI.
    public var path: String
    /// The Hangar configuration: access, registry, collections, retention, encryption, observability.
    public var store: StoreConfiguration
    /// What a commit waits for; `.full` by default.
    public var synchronous: Synchronous = .full
    /// How concurrent writes share a commit; on by default, waiting for no one (``GroupCommit``).
    public var groupCommit = GroupCommit()
    /// How long a writer waits for another process's write lock before failing, in milliseconds; 5 s by default.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// How many read-only connections may read at once (file stores; in-memory stores read on the writer); 4 by
    /// default.
    public var maximumReaders: Int = 4
    /// The collections mirrored to files, by name, and the folder of each: a mirrored collection's documents are
    /// kept as `folder/<key>.plist` (binary, written atomically). The mirror follows the change feed from a cursor
    /// kept in the store, after every commit that changes the collection, on ``SQLiteStore/retryMirrors()`` and on
    /// open; a delete removes the file. Files it cannot write are retried and reported
    /// (``SQLiteStore/mirrorFailures()``), never thrown from the committed `write`. Keyed by the names' bytes:
    /// two canonically equivalent collection names are two collections; two collections may not share a folder,
    /// nor folders whose names are canonically equivalent (one folder on macOS's file systems): the store refuses
    /// to open (``HangarError/Code/invalidConfiguration``).
    public var mirrors: [ExactString: String] = [:]
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

    /// The mirror folder of `collection`, looked up by the name's bytes (a canonically equivalent name is another
    /// collection, with no mirror unless it has one of its own).
    func mirrorDirectory(for collection: String) -> String? {
        mirrors[ExactString(collection)]
    }

    /// Throws ``HangarError/Code/invalidConfiguration`` when two collections are mirrored into one folder, or into
    /// folders whose names are canonically equivalent (`String ==` is canonical equivalence: on purpose here, as
    /// macOS's file systems find one folder under both spellings).
    func validateMirrors() throws(HangarError) {
        let declared = mirrors.sorted { $0.key < $1.key }
        for (index, mirror) in declared.enumerated() {
            for other in declared[..<index] where other.value == mirror.value {
                throw HangarError(
                    .invalidConfiguration,
                    "Collections \(other.key.string.debugDescription) and \(mirror.key.string.debugDescription) are "
                        + "mirrored into one folder (\(mirror.value.debugDescription)); give each a folder of its own")
            }
        }
    }
}
