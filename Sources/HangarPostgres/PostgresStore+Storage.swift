public import Hangar
import PostgresNIO

/// What a PostgreSQL store tells through ``Hangar/DocumentStore`` of where it is: the server, database and schema,
/// and the bytes of the schema's tables. The write-ahead log and integrity are the server's, and backups its own
/// tools' (``Hangar/DocumentStore/backup(to:)`` throws ``Hangar/HangarError/Code/unsupported``).
extension PostgresStore {
    /// `PostgreSQL`, the server's `user@host:port/database` and the schema, and the bytes of the schema's tables
    /// with their indexes and TOAST (`nil` when the server cannot be asked).
    public func storageFacts() async -> StorageFacts {
        let location = postgresConfiguration.endpointDescription + ", schema " + postgresConfiguration.schema
        var size: Int?
        do {
            let schema = engine.sql.schema
            let bytes = try await engine.withTransaction(.singleRead) { transaction in
                var binds = PostgresBindings()
                binds.append(schema)
                return try await transaction.scalar(Self.schemaSize, binds, as: Int64.self)
            }
            size = bytes.map { Int($0) }
        } catch {
            size = nil
        }
        return StorageFacts(engine: "PostgreSQL", location: location, size: size)
    }

    /// The bytes of the tables of schema `$1`, with their indexes and TOAST.
    static let schemaSize = """
        SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r'
        """
}
