import CSQLite
import Hangar

/// A prepared statement, finalized when released. Used by one connection, on one thread at a time.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String

    init(connection: SQLiteConnection, handle database: OpaquePointer, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw connection.lastError(sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Ready to run again, with no values bound.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (1-based, as SQLite counts)

    func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value), at: index)
    }

    func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_text(handle, index, value, -1, hangar_sqlite3_transient()))
    }

    func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try check(sqlite3_bind_null(handle, index)) }
    }

    func bind(_ bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        let status = bytes.withUnsafeBytes { raw in
            // A zero-length blob still needs a non-null pointer to be a blob rather than NULL.
            sqlite3_bind_blob(
                handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
                hangar_sqlite3_transient())
        }
        try check(status)
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let blob): try bind(blob, at: index)
        case .null: try check(sqlite3_bind_null(handle, index))
        }
    }

    // MARK: Running

    /// Steps once: `true` when a row is ready, `false` when done.
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.lastError(sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    // MARK: Columns (0-based, as SQLite counts)

    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    func text(at column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(at column: Int32) -> String? {
        isNull(at: column) ? nil : text(at: column)
    }

    func blob(at column: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(int64(at: column))
        case SQLITE_FLOAT: .real(double(at: column))
        case SQLITE_TEXT: .text(text(at: column))
        case SQLITE_BLOB: .blob(blob(at: column))
        default: .null
        }
    }

    private func check(_ status: Int32) throws(SQLiteError) {
        guard status == SQLITE_OK else { throw connection.lastError(sql: sql) }
    }
}

/// A value SQLite stores in a column.
enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}
