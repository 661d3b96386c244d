public import Foundation
public import PropertyList

/// How a store is opened and how each collection behaves.
public struct StoreConfiguration: Sendable {
    /// SQLite's `synchronous` setting: what a commit waits for.
    public enum Synchronous: String, Sendable {
        /// Every commit is on disk before `write` returns, even after a power loss. The default.
        case full = "FULL"
        /// A commit survives a crash of the program; a power loss may lose the last commits (never corrupts).
        case normal = "NORMAL"
    }

    /// Whether a store may be written.
    public enum Access: Sendable, Hashable {
        /// Opened for reading and writing: created (with its folder) when missing, its schema upgraded. The
        /// default.
        case readWrite
        /// Opened for reading only: nothing is created, upgraded, indexed or mirrored, every read works, and
        /// every write throws ``HangarError/readOnly`` before it starts. Works on a read-only file or file
        /// system (there, the file is read as immutable: no other process may be writing it).
        case readOnly
    }

    /// Whether the store may be written; `.readWrite` by default.
    public var access: Access = .readWrite
    /// The permissions of the files the store creates — its database file (SQLite gives its `-wal` and `-shm`
    /// files the same), backups, exports and mirror files — whatever the process's umask: owner only
    /// (`0o600`) by default. Files that already exist keep theirs.
    public var filePermissions: UInt16 = 0o600
    /// The permissions of the folders the store creates (the store's own, export and mirror folders): owner
    /// only (`0o700`) by default. Folders that already exist keep theirs.
    public var folderPermissions: UInt16 = 0o700
    /// The name of a registered SQLite VFS to open the database with (`nil`: SQLite's default); for tests
    /// that inject file system faults.
    package var sqliteVFS: String?
    /// What a commit waits for; `.full` by default.
    public var synchronous: Synchronous = .full
    /// How long a writer waits for another process's write lock before failing, in milliseconds.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// How many read-only connections may read at once (file stores; in-memory stores read on the writer).
    public var maximumReaders: Int = 4
    /// The allow-list used to encode and decode class-tagged models.
    public var registry: ClassRegistry = ClassRegistry()
    /// Per-collection settings; a collection not listed uses the default ``CollectionOptions``.
    public var collections: [String: CollectionOptions] = [:]
    /// Told about every migration step run while reading documents.
    public var migrationObserver: (@Sendable (MigrationEvent) -> Void)?
    /// Told how index building goes when the store opens with indexes it has not built yet. It is called
    /// inside the opening transaction: it must not use the store.
    public var indexProgress: (@Sendable (IndexBuildProgress) -> Void)?
    /// Told when a mirror file could not be written (the save is committed; the store retries later). The
    /// failure is also logged as a warning to ``logger``; when this is `nil` and no logger was set (the default
    /// logger drops every record), a line goes to standard error instead.
    public var mirrorFailureHandler: (@Sendable (HangarError) -> Void)?
    /// How much of the change feed (``Store/changes(since:in:limit:)``) is kept: by default the last 100,000
    /// changes, none older than 30 days.
    public var changeRetention: ChangeRetention = ChangeRetention()
    /// How often a follower (``Store/follow(after:in:)``) looks for commits made through other connections
    /// (other processes, other stores on the file); commits through the same store wake it at once.
    public var followPollInterval: Duration = .milliseconds(75)
    /// Seals every body saved and opens every sealed body read (see the Encryption article); `nil` (the default)
    /// stores bodies as plaintext and refuses sealed ones (``HangarError/keyUnavailable``).
    public var encryption: (any DocumentEncryption)?
    /// Where the store logs, what it measures with, and when a transaction is slow (<doc:Observability>):
    /// by default nothing is logged and metrics go to the global `MetricsSystem`.
    public var observability = StoreObservability()
    /// The store's log and metrics, set by the store when it opens (with its engine's name).
    package var instruments: StoreInstruments?

    /// The defaults: FULL durability, 5 s busy timeout, 4 readers, an empty registry.
    public init() {}

    /// The options of `collection`.
    public func options(for collection: String) -> CollectionOptions {
        collections[collection] ?? CollectionOptions()
    }
}

/// How much of the change feed a store keeps. Older changes are pruned as transactions commit (possibly
/// later than these limits allow, never earlier); asking for them throws ``HangarError/changesTooOld``.
public struct ChangeRetention: Sendable, Hashable {
    /// The most changes kept (the newest), or `nil` for no limit by count. The feed is pruned once it is 1 %
    /// over (at least one change over): until then a few more may be kept, never fewer.
    public var maximumCount: Int?
    /// The oldest a kept change may be, in seconds, or `nil` for no limit by age.
    public var maximumAge: TimeInterval?

    /// Keeps at most `maximumCount` changes (100,000 by default), none older than `maximumAge` (30 days).
    public init(maximumCount: Int? = 100_000, maximumAge: TimeInterval? = 30 * 24 * 60 * 60) {
        self.maximumCount = maximumCount
        self.maximumAge = maximumAge
    }

    /// Every change is kept.
    public static let keepAll = ChangeRetention(maximumCount: nil, maximumAge: nil)
}

/// How much history a collection keeps.
public enum HistoryPolicy: Sendable, Hashable {
    /// Every earlier revision is kept.
    case keepAll
    /// The last `n` earlier revisions are kept.
    case keepLast(Int)
    /// No earlier revision is kept.
    case keepNone
}

/// A secondary index: the values a document is found by, extracted from its content.
///
/// The store remembers which indexes it built and from which definition (``fingerprint``): opening it with
/// an index it has not built, or with a changed definition, builds it over the documents already stored;
/// an index no longer declared is dropped. Change `version` whenever a custom `extract` changes.
public struct IndexDefinition: Sendable {
    /// The index's name, used in queries.
    public let name: String
    /// Whether two documents may not share a value. A save that would share one throws
    /// ``HangarError/duplicate`` (naming the index and the other key) before it writes anything: the rest of
    /// the transaction is untouched, and rolls back only if the error leaves the `write` closure. Building a
    /// unique index over stored duplicates fails the same way and builds nothing.
    public let unique: Bool
    /// Identifies the definition: when it changes, the index is rebuilt on open.
    public let fingerprint: String
    /// The values to index for a document (which are indexed, and their order: see
    /// ``ReadTransaction/keys(in:index:equalTo:)``).
    public let extract: @Sendable (PropertyList.Dictionary) -> [PropertyList]

    /// An index whose values `extract` computes from a document's content; `version` names the extraction
    /// (change it when `extract` changes, so stored entries are rebuilt).
    public init(
        name: String, version: String = "1", unique: Bool = false,
        extract: @escaping @Sendable (PropertyList.Dictionary) -> [PropertyList]
    ) {
        self.init(name: name, unique: unique, fingerprint: "custom " + Self.lengthPrefixed([version]), extract: extract)
    }

    private init(
        name: String, unique: Bool, fingerprint: String,
        extract: @escaping @Sendable (PropertyList.Dictionary) -> [PropertyList]
    ) {
        self.name = name
        self.unique = unique
        // The value encoding's version is part of every fingerprint: a new encoding rebuilds every index.
        self.fingerprint = "encoding 1; unique \(unique); " + fingerprint
        self.extract = extract
    }

    private static func lengthPrefixed(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count):\($0)" }.joined(separator: ",")
    }

    /// An index on the values found by following `path` from the content: dictionaries by key, every element
    /// of an array at each step. `.path("airplanes", "registrationNumber")` indexes every airplane's number.
    public static func path(_ path: String..., name: String? = nil, unique: Bool = false) -> IndexDefinition {
        IndexDefinition(
            name: name ?? path.joined(separator: "."), unique: unique, fingerprint: "path " + lengthPrefixed(path)
        ) { content in
            var current: [PropertyList] = [.dictionary(content)]
            for key in path {
                var next: [PropertyList] = []
                for value in current {
                    switch value {
                    case .dictionary(let entries): if let found = entries[key] { next.append(found) }
                    case .array(let elements):
                        for case .dictionary(let entries) in elements {
                            if let found = entries[key] { next.append(found) }
                        }
                    default: break
                    }
                }
                current = next
            }
            return current.flatMap { value -> [PropertyList] in
                if case .array(let elements) = value { return elements }
                return [value]
            }
        }
    }
}

/// How far building indexes over stored documents has got (when a store opens with new index definitions,
/// or on ``Store/reindex(_:progress:)``).
public struct IndexBuildProgress: Sendable {
    /// The collection whose indexes are built.
    public let collection: String
    /// The indexes being built.
    public let indexes: [String]
    /// Documents indexed so far.
    public let indexed: Int
    /// Documents in the collection.
    public let total: Int
}

/// Settings for one collection.
public struct CollectionOptions: Sendable {
    /// How many earlier revisions to keep; all by default.
    public var history: HistoryPolicy
    /// Secondary indexes, maintained in the same transaction as every save.
    public var indexes: [IndexDefinition]
    /// When set, the collection is mirrored to `mirrorDirectory/<key>.plist` (binary, written atomically): the
    /// mirror follows the change feed from a cursor kept in the store, after every commit that changes the
    /// collection, on ``Store/retryMirrors()`` and on open; a delete removes the file. Files it cannot write
    /// are retried and reported (``Store/mirrorFailures()``), never thrown from the committed `write`.
    public var mirrorDirectory: String?
    /// The format documents of this collection have, for untyped saves and imports (typed saves use the
    /// model's own format). When set, a document with a newer major is refused.
    public var format: DocumentFormat?

    /// Options for a collection.
    public init(
        history: HistoryPolicy = .keepAll,
        indexes: [IndexDefinition] = [],
        mirrorDirectory: String? = nil,
        format: DocumentFormat? = nil
    ) {
        self.history = history
        self.indexes = indexes
        self.mirrorDirectory = mirrorDirectory
        self.format = format
    }
}
