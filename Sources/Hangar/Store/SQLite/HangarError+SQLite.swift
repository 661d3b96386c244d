extension HangarError {
    /// A failed SQLite call, as a ``Code/database`` error about `collection` and `key`.
    init(_ error: SQLiteError, collection: String? = nil, key: String? = nil) {
        self.init(
            .database, "SQLite error \(error.code): \(error.message)", collection: collection, key: key,
            resultCode: error.code, sql: error.sql)
    }
}
