import PropertyList

/// How a store behaves on every engine: its access, the registry, each collection's options, the change feed's
/// retention, encryption and observability. Each engine adds its own settings beside it
/// (`SQLiteStoreConfiguration`, `PostgresStoreConfiguration`), so no engine carries a setting it ignores.
public struct StoreConfiguration: Sendable {
    /// Whether a store may be written.
    public enum Access: Sendable, Hashable {
        /// Opened for reading and writing: created when missing, its schema upgraded. The default.
        case readWrite
        /// Opened for reading only: nothing is created, upgraded, indexed or mirrored, every read works, and
        /// every write throws ``HangarError/readOnly`` before it starts (on PostgreSQL, every transaction is
        /// also a read-only one on the server).
        case readOnly
    }

    /// Whether the store may be written; `.readWrite` by default.
    public var access: Access = .readWrite
    /// The permissions of the files the store creates — exports on every engine; on SQLite also its database
    /// file (and its `-wal` and `-shm` files), backups and mirror files — whatever the process's umask: owner
    /// only (`0o600`) by default. Files that already exist keep theirs.
    public var filePermissions: UInt16 = 0o600
    /// The permissions of the folders the store creates (export folders; on SQLite also the store's own and
    /// mirror folders): owner only (`0o700`) by default. Folders that already exist keep theirs.
    public var folderPermissions: UInt16 = 0o700
    /// The allow-list used to encode and decode class-tagged models.
    public var registry: ClassRegistry = ClassRegistry()
    /// Per-collection settings, keyed by the names' bytes (two canonically equivalent names, `"caf\u{E9}"` and
    /// `"cafe\u{301}"`, are two collections with options of their own); a collection not listed uses the default
    /// ``CollectionOptions``. `collections["pilots"] = options` and `collections[Pilot.collection]` both work.
    public var collections: [ExactString: CollectionOptions] = [:]
    /// Told about every migration step run while reading documents.
    public var migrationObserver: (@Sendable (MigrationEvent) -> Void)?
    /// Told how index building goes when the store opens with indexes it has not built yet. It is called
    /// inside the opening transaction: it must not use the store.
    public var indexProgress: (@Sendable (IndexBuildProgress) -> Void)?
    /// How much of the change feed (``DocumentReader/changes(since:in:limit:)``) is kept: by default the last 100,000
    /// changes, none older than 30 days.
    public var changeRetention: ChangeRetention = ChangeRetention()
    /// How often a follower (``DocumentStore/follow(after:in:)``) looks for commits made through other connections
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

    /// The defaults: read-write, an empty registry, every collection with the default options.
    public init() {}

    /// The options of `collection`, matched by its bytes: a name canonically equivalent to a listed one but
    /// spelled with other bytes (`"caf\u{E9}"` and `"cafe\u{301}"`) is another collection, with the default
    /// options.
    ///
    /// The owners' collection (``DocumentOwners/collection``) always has the owners index
    /// (``DocumentOwners/index``) besides any the configuration lists for it.
    public func options(for collection: String) -> CollectionOptions {
        var options = collections[ExactString(collection)] ?? CollectionOptions()
        if collection.hasSameBytes(as: DocumentOwners.collection),
            !options.indexes.contains(where: { $0.name.hasSameBytes(as: DocumentOwners.index.name) })
        {
            options.indexes.append(DocumentOwners.index)
        }
        return options
    }

    /// The names of the collections listed in ``collections``, and the owners' collection
    /// (``DocumentOwners/collection``), whose index every store keeps, in byte order: those whose indexes a store
    /// builds on open.
    public var listedCollections: [String] {
        var names = collections
        names[ExactString(DocumentOwners.collection)] = names[ExactString(DocumentOwners.collection)] ?? .init()
        return names.keys.sorted().map(\.string)
    }
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

/// Settings for one collection.
public struct CollectionOptions: Sendable {
    /// How many earlier revisions to keep; all by default.
    public var history: HistoryPolicy
    /// Secondary indexes, maintained in the same transaction as every save.
    public var indexes: [IndexDefinition]
    /// The format documents of this collection have, for untyped saves and imports (typed saves use the
    /// model's own format). When set, a document with a newer major is refused.
    public var format: DocumentFormat?
    /// The model every document saved as an envelope must read as (``DocumentModel``); checked only with a
    /// ``format`` to open the envelope with. `nil`: envelopes are checked for their version alone.
    public var model: DocumentModel?

    /// Options for a collection.
    public init(
        history: HistoryPolicy = .keepAll,
        indexes: [IndexDefinition] = [],
        format: DocumentFormat? = nil,
        model: DocumentModel? = nil
    ) {
        self.history = history
        self.indexes = indexes
        self.format = format
        self.model = model
    }

    /// Options for the documents of `Document`: its format, and every envelope checked against it.
    public static func documents<Document: VersionedDocument & SendableMetatype>(
        of document: Document.Type, history: HistoryPolicy = .keepAll, indexes: [IndexDefinition] = []
    ) -> CollectionOptions {
        CollectionOptions(history: history, indexes: indexes, format: Document.format, model: DocumentModel(document))
    }
}
