extension SQLiteStore {
    /// The version of the store schema (tables and layout) this Hangar creates, reads and writes in the file: a
    /// file of a newer one is refused. What a health check reports (the Pilots server's `GET /health`).
    public var schemaVersion: Int { Int(SQLiteSchema.currentVersion) }
}
