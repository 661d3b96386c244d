import CSQLite

extension HangarError {
    /// A failed SQLite call, as a ``Code/database`` error about `collection` and `key` (``Code/corrupt`` when
    /// SQLite found the file damaged).
    init(_ error: SQLiteError, collection: String? = nil, key: String? = nil) {
        self.init(
            Code(sqliteResultCode: error.code), "SQLite error \(error.code): \(error.message)", collection: collection,
            key: key, resultCode: error.code, sql: error.sql)
    }
}

extension HangarError.Code {
    /// The code for a failure SQLite reported as `resultCode`, decided by the primary code alone:
    /// SQLITE_CORRUPT and SQLITE_NOTADB (a malformed page, a file cut short or not a database at all, a
    /// write-ahead log that does not fit the file) are ``corrupt``; every other code is ``database``.
    init(sqliteResultCode resultCode: Int32) {
        switch resultCode & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt
        default: self = .database
        }
    }
}
