extension Store {
    /// The version of the store schema (tables and layout) this Hangar creates, reads and writes; a file opened
    /// for writing is upgraded to it. What a health check reports (the Pilots server's `GET /health`).
    public var schemaVersion: Int { Int(StoreSchema.currentVersion) }
}
