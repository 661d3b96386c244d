/// What an engine tells about where and how it keeps a store, beyond the documents: what Hangar Studio's Overview
/// shows, the same way on every engine (``DocumentStore/storageFacts()``).
public struct StorageFacts: Sendable, Equatable {
    /// The engine's name as a person reads it: `SQLite`, `PostgreSQL`.
    public var engine: String
    /// Where the store is, for a person: the file's path, or the server's `user@host:port/database` and the
    /// schema (never a password); `nil` when the engine does not say.
    public var location: String?
    /// The file the store is kept in, for an engine that keeps each store in one (SQLite): what
    /// ``DocumentStore/backup(to:)`` copies. `nil` for a store on a server.
    public var file: String?
    /// The bytes the store takes, when the engine can tell: the file; a PostgreSQL schema's tables with their
    /// indexes.
    public var size: Int?
    /// The bytes of the write-ahead log the store keeps of its own (SQLite's `-wal` file beside the store file);
    /// `nil` for an engine whose log is the server's.
    public var writeAheadLogSize: Int?

    /// Facts of an `engine`, with what else it can tell.
    public init(
        engine: String, location: String? = nil, file: String? = nil, size: Int? = nil,
        writeAheadLogSize: Int? = nil
    ) {
        self.engine = engine
        self.location = location
        self.file = file
        self.size = size
        self.writeAheadLogSize = writeAheadLogSize
    }
}

/// The defaults of an engine that tells nothing of its storage: its type's name, no check of its own, no backup.
extension DocumentStore {
    /// The engine named by the store's type, and nothing more.
    public func storageFacts() async -> StorageFacts {
        StorageFacts(engine: String(describing: Self.self))
    }

    /// `nil`: the engine has no check of its own (``unreadableDocuments()`` still reads every document).
    public func storageProblems() async throws -> [String]? { nil }

    /// Throws ``HangarError/Code/unsupported``: the engine keeps no file of its own to copy.
    public func backup(to destination: String) throws {
        throw HangarError(
            .unsupported,
            "\(String(describing: Self.self)) keeps no store file to copy: back it up with its server's own tools")
    }
}
