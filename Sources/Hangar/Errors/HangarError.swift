/// The one error the Hangar module throws, from the model layer, the document layer and the store: a code to
/// match, a message, the cause, and where it happened.
///
/// Match codes directly: `catch HangarError.conflict { … }` (or `catch HangarError.Code.conflict`), or compare
/// ``code``. Show ``description`` to people. It names where the failure happened — the place in a value
/// (`objects[3].airplanes[1].engineHours: expected integer, found string "12"`), the document, or the collection,
/// key and SQL statement — never a document's contents or a value bound to a statement.
public struct HangarError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added, so `switch` on it with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Name: String, Sendable, Hashable {
            // The model layer.
            case missingKey, typeMismatch, outOfRange, invalidValue
            case unknownClassTag, disallowedClassTag, unrepresentable
            // Documents.
            case notAnEnvelope, missingVersion, invalidVersion, newerMajor, unsupportedOldMajor, migrationFailed
            case invalidFormat
            // The store.
            case conflict, notFound, undecodable, invalidDocument, newerSchema, io, invalidName, database
            case duplicate, reservedKey, contention, unsupportedFileSystem, changesTooOld, diskFull, readOnly, corrupt
            case keyUnavailable, unsupported, invalidQuery, invalidCursor
            // A database server (the PostgreSQL engine).
            case connectionLost, outcomeUnknown, timeout, serializationFailure, invalidConfiguration, closed
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        // MARK: Models

        /// A required dictionary key is absent (the path names the dictionary, the message the key).
        public static let missingKey = Code(.missingKey)
        /// A value has another kind than the model expects (a string where an integer belongs).
        public static let typeMismatch = Code(.typeMismatch)
        /// A number does not fit the Swift type that reads it (`-1` into `UInt64`, `300` into `UInt8`).
        public static let outOfRange = Code(.outOfRange)
        /// A value of the right kind that the model rejects (an unknown enum case, a malformed URL, …).
        public static let invalidValue = Code(.invalidValue)
        /// A `"class"` tag that no type is registered under.
        public static let unknownClassTag = Code(.unknownClassTag)
        /// A `"class"` tag registered for another base type than the one being read.
        public static let disallowedClassTag = Code(.disallowedClassTag)
        /// A value that has no property-list form (a `nil` in an array, an `Encodable` that encodes nothing).
        public static let unrepresentable = Code(.unrepresentable)

        // MARK: Documents

        /// The top level is not a dictionary.
        public static let notAnEnvelope = Code(.notAnEnvelope)
        /// `majorVersion` (or `minorVersion`, when it is required) is absent.
        public static let missingVersion = Code(.missingVersion)
        /// A version key holds something other than a non-negative integer.
        public static let invalidVersion = Code(.invalidVersion)
        /// The document's major is newer than this code knows. It is refused and left as it is: not read, and in
        /// the store not overwritten.
        public static let newerMajor = Code(.newerMajor)
        /// The document's major is older than the oldest this code can still migrate.
        public static let unsupportedOldMajor = Code(.unsupportedOldMajor)
        /// A migration step threw.
        public static let migrationFailed = Code(.migrationFailed)
        /// The format's declaration is inconsistent (a missing or duplicate migration step).
        public static let invalidFormat = Code(.invalidFormat)

        // MARK: The store

        /// A save or delete named an expected revision and another writer had changed the document.
        public static let conflict = Code(.conflict)
        /// The document (or revision, or collection) does not exist.
        public static let notFound = Code(.notFound)
        /// A stored document could not be decoded (corrupt bytes, bad envelope, unknown class tag, model error).
        /// It is left exactly as it is.
        public static let undecodable = Code(.undecodable)
        /// A document given to the store is not a valid envelope (no `majorVersion`, not a dictionary).
        public static let invalidDocument = Code(.invalidDocument)
        /// The store (its file, or its PostgreSQL schema) was written by a newer version of Hangar; it is not
        /// opened, and not changed.
        public static let newerSchema = Code(.newerSchema)
        /// A file could not be read or written: an export, import, mirror or backup file, or the store's own
        /// database file when the operating system reported an I/O error (`SQLITE_IOERR`, `EIO`). What a
        /// failed write had done is rolled back.
        public static let io = Code(.io)
        /// The file system is full (`SQLITE_FULL`, `ENOSPC`, `EDQUOT`): nothing of the failed write was kept —
        /// a save rolled back, a destination file left as it was — and the store stays open; writes work again
        /// once there is room.
        public static let diskFull = Code(.diskFull)
        /// The store, or a file to write, cannot be written: the store was opened read-only
        /// (``StoreConfiguration/access``), or its file or file system is read-only (`SQLITE_READONLY`,
        /// `EROFS`, `EACCES`, `EPERM`). Nothing was written.
        public static let readOnly = Code(.readOnly)
        /// A key or collection name is not acceptable (empty, or with a NUL character).
        public static let invalidName = Code(.invalidName)
        /// The database reported an error not covered above (`sqliteResultCode`, in `HangarSQLite`, says which for
        /// SQLite, ``HangarError/sqlState`` for a PostgreSQL server).
        public static let database = Code(.database)
        /// A save would give a unique index a value another document already has: ``HangarError/index`` and
        /// ``HangarError/otherKey`` name them. The save wrote nothing.
        public static let duplicate = Code(.duplicate)
        /// A model's representation uses a key the envelope or the store reserves (``HangarError/field``
        /// names it): it could be saved but never read back, so it is refused.
        public static let reservedKey = Code(.reservedKey)
        /// ``DocumentStore/update(_:key:in:maximumAttempts:_:)`` met a conflict on every attempt.
        public static let contention = Code(.contention)
        /// The store's file system cannot hold it as it needs (no write-ahead log); it was not opened.
        public static let unsupportedFileSystem = Code(.unsupportedFileSystem)
        /// Changes were asked for from a sequence the feed no longer keeps (``HangarError/oldestRetainedSequence``
        /// is the first it keeps): reading on would skip changes, so nothing is returned.
        public static let changesTooOld = Code(.changesTooOld)
        /// The store's file is damaged: SQLite found a malformed page, a file cut short, a file that is not a
        /// database, or a write-ahead log whose pages do not fit it (SQLITE_CORRUPT or SQLITE_NOTADB, in
        /// `sqliteResultCode`, in `HangarSQLite`). Nothing was changed. `hangar db check` lists the damage and
        /// `hangar db salvage` copies what still reads into a new store (the *Damaged stores* section of the
        /// *The store* article).
        public static let corrupt = Code(.corrupt)
        /// A document is sealed with a key the store was not given (``StoreConfiguration/encryption`` is absent,
        /// or holds other keys; ``HangarError/keyID`` names the key): it is not read, and a save over it, or over
        /// any other document that key sealed, writes nothing.
        public static let keyUnavailable = Code(.keyUnavailable)
        /// The engine does not do what was asked of it: a file backup (``DocumentStore/backup(to:)``) of a store
        /// kept on a database server. Nothing was done.
        public static let unsupported = Code(.unsupported)
        /// An index query is not acceptable as asked (``IndexQuery``): a value the index cannot hold (NaN, an
        /// array on an index of single values, more components than a compound index has), a prefix of an index
        /// of single values, or a limit below 1. Nothing was read.
        public static let invalidQuery = Code(.invalidQuery)
        /// A page cursor (``IndexCursor``) was changed, cut short, is of another version, or belongs to another
        /// query (another collection, index, order or range). Nothing was read; start again from the first page.
        public static let invalidCursor = Code(.invalidCursor)

        // MARK: A database server

        /// The connection to the database server was lost or could not be made (the server shut down or
        /// restarted, the session was terminated, the network failed) before the transaction was asked to
        /// commit: it was rolled back and wrote nothing. Retryable: the next call uses a new connection.
        public static let connectionLost = Code(.connectionLost)
        /// The connection was lost while the transaction was committing: it may or may not have committed.
        /// Neither a failure nor a success: read the document, or save again with the expected revision (a save
        /// that did commit then reports ``conflict``).
        public static let outcomeUnknown = Code(.outcomeUnknown)
        /// A statement ran longer than the store's statement timeout, waited too long for a lock, or a
        /// transaction stayed idle longer than its idle-in-transaction timeout (the server then ends the
        /// session). The transaction was rolled back and wrote nothing.
        public static let timeout = Code(.timeout)
        /// The database could not run the transaction as if alone (a serialization failure, a deadlock, or a
        /// concurrent insert of the same row) on any attempt: it was rolled back and wrote nothing. Retryable.
        public static let serializationFailure = Code(.serializationFailure)
        /// A store's configuration is not acceptable (a malformed database URL, an invalid schema name, a pool
        /// size below 1); nothing was opened.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The store was closed (``DocumentStore/close()``): nothing was read or written.
        public static let closed = Code(.closed)

        /// Whether running the same transaction again may succeed as it is: nothing was written, and the cause
        /// (a lost connection, a concurrent transaction) is not in the transaction itself.
        public var isRetryable: Bool {
            switch name {
            case .connectionLost, .serializationFailure: true
            default: false
            }
        }

        public var description: String { name.rawValue }

        /// Whether the description shows the underlying error. A model error's message already says what
        /// the cause said (a `DecodingError`'s words); the other layers add the cause's own description.
        var describesUnderlying: Bool {
            switch name {
            case .missingKey, .typeMismatch, .outOfRange, .invalidValue, .unknownClassTag, .disallowedClassTag,
                .unrepresentable:
                false
            default: true
            }
        }

        /// `catch HangarError.Code.conflict`: matches a ``HangarError`` with this code.
        public static func ~= (code: Self, error: any Error) -> Bool {
            (error as? HangarError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong, in words, without where: `expected integer, found string "12"`.
    public let message: String
    /// The error that caused this one, if it came from elsewhere: a user's `Codable` code, a migration step, a
    /// `PropertyListError`, a file system failure, or another `HangarError` (a store error's document error).
    public let underlying: (any Error)?

    // MARK: Where it happened

    /// Where in the value a model error happened, from the value the caller handed over; ``ModelPath/root``
    /// for errors of the other layers.
    public private(set) var path: ModelPath
    /// The collection concerned, if any.
    public let collection: String?
    /// The key concerned, if any.
    public let key: String?
    /// The document's name, when a document error was given one (the store gives `collection/key`).
    public let document: String?
    /// The version the document declared, for document errors where it was readable.
    public let storedVersion: DocumentVersion?
    /// The result code the engine's database library reported (SQLite's, extended), for errors it reported;
    /// `HangarSQLite` reads it as `sqliteResultCode`.
    package let resultCode: Int32?
    /// The SQLSTATE code a database server reported (`40001`, `57014`, …), for errors a server reported.
    public package(set) var sqlState: String?
    /// The SQL statement that failed, for database errors (never its bound values).
    public let sql: String?
    /// The index concerned, for ``Code/duplicate``.
    public package(set) var index: String?
    /// The other document's key, for ``Code/duplicate``.
    public package(set) var otherKey: String?
    /// The reserved content key, for ``Code/reservedKey``.
    public package(set) var field: String?
    /// The file concerned, for imports and mirrors.
    public package(set) var file: String?
    /// The oldest change sequence the store still keeps, for ``Code/changesTooOld``.
    public package(set) var oldestRetainedSequence: Int?
    /// The id of the key concerned, for ``Code/keyUnavailable`` (an id derived from the key, never the key).
    public package(set) var keyID: String?
    /// The message without the values it quotes from a document (`found string` for `found string "12"`),
    /// when it quotes any: what a store or document error shows of a model error it wraps.
    var messageWithoutValues: String?

    /// An error with `code` at `path`. Model initializers use it to reject values the readers cannot judge.
    public init(_ code: Code, _ message: String, at path: ModelPath = .root, underlying: (any Error)? = nil) {
        self.init(code, message, at: path, collection: nil, underlying: underlying)
    }

    package init(
        _ code: Code, _ message: String, at path: ModelPath = .root, collection: String? = nil, key: String? = nil,
        storedVersion: DocumentVersion? = nil, document: String? = nil, resultCode: Int32? = nil,
        sql: String? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.collection = collection
        self.key = key
        self.storedVersion = storedVersion
        self.document = document
        self.resultCode = resultCode
        self.sql = sql
        self.underlying = underlying
    }

    /// This error naming the document at `key` in `collection` as where it happened, when it names no collection
    /// yet (an error a user's `DocumentEncryption` threw, say); otherwise this error as it is.
    package func naming(collection: String, key: String) -> HangarError {
        guard self.collection == nil else { return self }
        var named = HangarError(
            code, message, at: path, collection: collection, key: key, storedVersion: storedVersion,
            document: document, resultCode: resultCode, sql: sql, underlying: underlying)
        named.sqlState = sqlState
        named.index = index
        named.otherKey = otherKey
        named.field = field
        named.file = file
        named.oldestRetainedSequence = oldestRetainedSequence
        named.keyID = keyID
        named.messageWithoutValues = messageWithoutValues
        return named
    }

    /// The message and, outside the model layer, the underlying error: the description without where.
    ///
    /// A model error underneath is shown without the values it quotes (`found string`, not `found string "12"`),
    /// so a store or document error does not repeat a document's values; the model error itself, in
    /// ``underlying``, still says what it found. Other underlying errors are shown as they describe themselves.
    public var reason: String {
        guard let underlying, code.describesUnderlying else { return message }
        guard let inner = underlying as? HangarError else { return "\(message): \(underlying)" }
        if !inner.code.describesUnderlying { return "\(message): \(inner.descriptionWithoutValues)" }
        // An error about a named document already names it: give only its reason.
        return "\(message): \(inner.document != nil ? inner.reason : inner.description)"
    }

    /// The description, with a model error's message without the values it quotes.
    var descriptionWithoutValues: String {
        let text = messageWithoutValues ?? message
        return path.isRoot ? text : "\(path): \(text)"
    }

    /// Where it happened, then the ``reason``, then the SQL statement for database errors:
    /// `pilots[0]: missing key "name"`, `pilots/ada: Not read: …`, `SQLite error 5: … (while executing `…`)`.
    public var description: String {
        var text = ""
        if let collection {
            text += key.map { "\(collection)/\($0): " } ?? "\(collection): "
        } else if let document {
            text += "\(document): "
        } else if !path.isRoot {
            text += "\(path): "
        }
        text += reason
        if let sql { text += " (while executing `\(sql)`)" }
        return text
    }

    /// The same error, found inside the value at `prefix`.
    func rebased(onto prefix: ModelPath) -> HangarError {
        guard !prefix.isRoot else { return self }
        var error = self
        error.path = prefix.appending(contentsOf: path)
        return error
    }
}

extension HangarError {
    /// ``Code/missingKey``, to match with `catch HangarError.missingKey`.
    public static let missingKey = Code.missingKey
    /// ``Code/typeMismatch``, to match with `catch HangarError.typeMismatch`.
    public static let typeMismatch = Code.typeMismatch
    /// ``Code/outOfRange``, to match with `catch HangarError.outOfRange`.
    public static let outOfRange = Code.outOfRange
    /// ``Code/invalidValue``, to match with `catch HangarError.invalidValue`.
    public static let invalidValue = Code.invalidValue
    /// ``Code/unknownClassTag``, to match with `catch HangarError.unknownClassTag`.
    public static let unknownClassTag = Code.unknownClassTag
    /// ``Code/disallowedClassTag``, to match with `catch HangarError.disallowedClassTag`.
    public static let disallowedClassTag = Code.disallowedClassTag
    /// ``Code/unrepresentable``, to match with `catch HangarError.unrepresentable`.
    public static let unrepresentable = Code.unrepresentable
    /// ``Code/notAnEnvelope``, to match with `catch HangarError.notAnEnvelope`.
    public static let notAnEnvelope = Code.notAnEnvelope
    /// ``Code/missingVersion``, to match with `catch HangarError.missingVersion`.
    public static let missingVersion = Code.missingVersion
    /// ``Code/invalidVersion``, to match with `catch HangarError.invalidVersion`.
    public static let invalidVersion = Code.invalidVersion
    /// ``Code/newerMajor``, to match with `catch HangarError.newerMajor`.
    public static let newerMajor = Code.newerMajor
    /// ``Code/unsupportedOldMajor``, to match with `catch HangarError.unsupportedOldMajor`.
    public static let unsupportedOldMajor = Code.unsupportedOldMajor
    /// ``Code/migrationFailed``, to match with `catch HangarError.migrationFailed`.
    public static let migrationFailed = Code.migrationFailed
    /// ``Code/invalidFormat``, to match with `catch HangarError.invalidFormat`.
    public static let invalidFormat = Code.invalidFormat
    /// ``Code/conflict``, to match with `catch HangarError.conflict`.
    public static let conflict = Code.conflict
    /// ``Code/notFound``, to match with `catch HangarError.notFound`.
    public static let notFound = Code.notFound
    /// ``Code/undecodable``, to match with `catch HangarError.undecodable`.
    public static let undecodable = Code.undecodable
    /// ``Code/invalidDocument``, to match with `catch HangarError.invalidDocument`.
    public static let invalidDocument = Code.invalidDocument
    /// ``Code/newerSchema``, to match with `catch HangarError.newerSchema`.
    public static let newerSchema = Code.newerSchema
    /// ``Code/io``, to match with `catch HangarError.io`.
    public static let io = Code.io
    /// ``Code/diskFull``, to match with `catch HangarError.diskFull`.
    public static let diskFull = Code.diskFull
    /// ``Code/readOnly``, to match with `catch HangarError.readOnly`.
    public static let readOnly = Code.readOnly
    /// ``Code/invalidName``, to match with `catch HangarError.invalidName`.
    public static let invalidName = Code.invalidName
    /// ``Code/database``, to match with `catch HangarError.database`.
    public static let database = Code.database
    /// ``Code/duplicate``, to match with `catch HangarError.duplicate`.
    public static let duplicate = Code.duplicate
    /// ``Code/reservedKey``, to match with `catch HangarError.reservedKey`.
    public static let reservedKey = Code.reservedKey
    /// ``Code/contention``, to match with `catch HangarError.contention`.
    public static let contention = Code.contention
    /// ``Code/unsupportedFileSystem``, to match with `catch HangarError.unsupportedFileSystem`.
    public static let unsupportedFileSystem = Code.unsupportedFileSystem
    /// ``Code/changesTooOld``, to match with `catch HangarError.changesTooOld`.
    public static let changesTooOld = Code.changesTooOld
    /// ``Code/corrupt``, to match with `catch HangarError.corrupt`.
    public static let corrupt = Code.corrupt
    /// ``Code/keyUnavailable``, to match with `catch HangarError.keyUnavailable`.
    public static let keyUnavailable = Code.keyUnavailable
    /// ``Code/connectionLost``, to match with `catch HangarError.connectionLost`.
    public static let connectionLost = Code.connectionLost
    /// ``Code/outcomeUnknown``, to match with `catch HangarError.outcomeUnknown`.
    public static let outcomeUnknown = Code.outcomeUnknown
    /// ``Code/timeout``, to match with `catch HangarError.timeout`.
    public static let timeout = Code.timeout
    /// ``Code/serializationFailure``, to match with `catch HangarError.serializationFailure`.
    public static let serializationFailure = Code.serializationFailure
    /// ``Code/invalidConfiguration``, to match with `catch HangarError.invalidConfiguration`.
    public static let invalidConfiguration = Code.invalidConfiguration
    /// ``Code/closed``, to match with `catch HangarError.closed`.
    public static let closed = Code.closed
    /// ``Code/unsupported``, to match with `catch HangarError.unsupported`.
    public static let unsupported = Code.unsupported
}
