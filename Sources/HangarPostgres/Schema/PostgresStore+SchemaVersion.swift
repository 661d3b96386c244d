extension PostgresStore {
    /// The version of the store schema (tables and layout) this Hangar creates, reads and writes in the store's
    /// PostgreSQL schema. What a health check reports (the Pilots server's `GET /health`).
    public var schemaVersion: Int { Int(engine.sql.currentVersion) }
}
