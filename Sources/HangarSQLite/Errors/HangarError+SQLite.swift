import CSQLite
import Hangar

extension HangarError {
    /// A failed SQLite call, as an error about `collection` and `key`: ``Code/diskFull``, ``Code/readOnly`` or
    /// ``Code/io`` when the result code (or the `errno` behind it) says the file system refused,
    /// ``Code/corrupt`` when SQLite found the file damaged, else ``Code/database`` with the statement's SQL (the
    /// file system's refusals and the file's damage are not about the statement).
    init(_ error: SQLiteError, collection: String? = nil, key: String? = nil) {
        let code = Code(sqliteResult: error.code, systemErrno: error.systemErrno)
        self.init(
            code, "SQLite error \(error.code): \(error.message)", collection: collection, key: key,
            resultCode: error.code, sql: code == .database ? error.sql : nil)
    }
}

extension HangarError.Code {
    /// The code for SQLite's result `code` (extended), with `systemErrno` for the I/O failures SQLite reports
    /// as `SQLITE_IOERR` while the system said `ENOSPC` or `EROFS`. SQLITE_CORRUPT and SQLITE_NOTADB (a
    /// malformed page, a file cut short or not a database at all, a write-ahead log that does not fit the
    /// file) are ``corrupt``.
    init(sqliteResult code: Int32, systemErrno: Int32) {
        switch code & 0xFF {
        case SQLITE_FULL: self = .diskFull
        case SQLITE_READONLY: self = .readOnly
        case SQLITE_IOERR: self = HangarError.Code(systemErrno: systemErrno) ?? .io
        case SQLITE_CANTOPEN: self = HangarError.Code(systemErrno: systemErrno) ?? .database
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt
        default: self = .database
        }
    }
}
