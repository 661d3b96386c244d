/// The error every store operation throws: a kind to match, the document it concerns, and the cause.
///
/// Match kinds directly: `catch StoreError.conflict { … }`. The description names the collection, key and
/// SQL statement where they apply, never a document's contents or a bound value.
public struct StoreError: Error, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A save or delete named an expected revision and another writer had changed the document.
        public static let conflict = Kind("conflict")
        /// The document (or revision, or collection) does not exist.
        public static let notFound = Kind("notFound")
        /// The stored document has a newer major than this code reads; it was not read or overwritten.
        public static let newerMajor = Kind("newerMajor")
        /// A stored document could not be decoded (corrupt bytes, bad envelope, unknown class tag, model error).
        /// It is left exactly as it is.
        public static let undecodable = Kind("undecodable")
        /// A document given to the store is not a valid envelope (no `majorVersion`, not a dictionary).
        public static let invalidDocument = Kind("invalidDocument")
        /// The store file was written by a newer version of Hangar; it is not opened, and not changed.
        public static let newerSchema = Kind("newerSchema")
        /// A file could not be read or written (export, import, mirror, backup).
        public static let io = Kind("io")
        /// A key or collection name is not acceptable (empty, or with a NUL character).
        public static let invalidName = Kind("invalidName")
        /// SQLite reported an error not covered above.
        public static let database = Kind("database")
        /// A save would give a unique index a value another document already has: ``StoreError/index`` and
        /// ``StoreError/otherKey`` name them. The save wrote nothing.
        public static let duplicate = Kind("duplicate")
        /// A model's representation uses a key the envelope or the store reserves (``StoreError/field``
        /// names it): it could be saved but never read back, so it is refused.
        public static let reservedKey = Kind("reservedKey")
        /// ``Store/update(_:key:in:maximumAttempts:_:)`` met a conflict on every attempt.
        public static let contention = Kind("contention")
        /// The store's file system cannot hold it as it needs (no write-ahead log); it was not opened.
        public static let unsupportedFileSystem = Kind("unsupportedFileSystem")

        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// What went wrong, in words.
    public let message: String
    /// The collection concerned, if any.
    public let collection: String?
    /// The key concerned, if any.
    public let key: String?
    /// SQLite's extended result code, for database errors.
    public let resultCode: Int32?
    /// The SQL statement that failed, for database errors (never its bound values).
    public let sql: String?
    /// The index concerned, for ``Kind/duplicate``.
    public internal(set) var index: String?
    /// The other document's key, for ``Kind/duplicate``.
    public internal(set) var otherKey: String?
    /// The reserved content key, for ``Kind/reservedKey``.
    public internal(set) var field: String?
    /// The file concerned, for imports and mirrors.
    public internal(set) var file: String?
    /// The cause: a `DocumentError`, `ModelError`, `PropertyListError` or `AtomicFile.Failure`.
    public let underlying: (any Error)?

    init(
        _ kind: Kind, _ message: String, collection: String? = nil, key: String? = nil,
        resultCode: Int32? = nil, sql: String? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.collection = collection
        self.key = key
        self.resultCode = resultCode
        self.sql = sql
        self.underlying = underlying
    }

    public var description: String {
        var text = ""
        if let collection { text += key.map { "\(collection)/\($0): " } ?? "\(collection): " }
        text += message
        // A document error already names the document this error is about: give only its reason.
        if let underlying { text += ": " + ((underlying as? DocumentError)?.reason ?? "\(underlying)") }
        if let sql { text += " (while executing `\(sql)`)" }
        return text
    }

    /// ``Kind/conflict``, to match with `catch StoreError.conflict`.
    public static let conflict = Kind.conflict
    /// ``Kind/notFound``, to match with `catch StoreError.notFound`.
    public static let notFound = Kind.notFound
    /// ``Kind/newerMajor``, to match with `catch StoreError.newerMajor`.
    public static let newerMajor = Kind.newerMajor
    /// ``Kind/undecodable``, to match with `catch StoreError.undecodable`.
    public static let undecodable = Kind.undecodable
    /// ``Kind/invalidDocument``, to match with `catch StoreError.invalidDocument`.
    public static let invalidDocument = Kind.invalidDocument
    /// ``Kind/newerSchema``, to match with `catch StoreError.newerSchema`.
    public static let newerSchema = Kind.newerSchema
    /// ``Kind/io``, to match with `catch StoreError.io`.
    public static let io = Kind.io
    /// ``Kind/invalidName``, to match with `catch StoreError.invalidName`.
    public static let invalidName = Kind.invalidName
    /// ``Kind/database``, to match with `catch StoreError.database`.
    public static let database = Kind.database
    /// ``Kind/duplicate``, to match with `catch StoreError.duplicate`.
    public static let duplicate = Kind.duplicate
    /// ``Kind/reservedKey``, to match with `catch StoreError.reservedKey`.
    public static let reservedKey = Kind.reservedKey
    /// ``Kind/contention``, to match with `catch StoreError.contention`.
    public static let contention = Kind.contention
    /// ``Kind/unsupportedFileSystem``, to match with `catch StoreError.unsupportedFileSystem`.
    public static let unsupportedFileSystem = Kind.unsupportedFileSystem
}

extension StoreError {
    init(_ error: SQLiteError, collection: String? = nil, key: String? = nil) {
        self.init(
            .database, "SQLite error \(error.code): \(error.message)", collection: collection, key: key,
            resultCode: error.code, sql: error.sql)
    }
}

extension StoreError.Kind {
    /// `catch StoreError.conflict`: matches a `StoreError` of this kind.
    public static func ~= (kind: Self, error: any Error) -> Bool {
        (error as? StoreError)?.kind == kind
    }
}
