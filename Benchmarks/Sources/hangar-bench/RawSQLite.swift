import BenchSQLite
import PropertyList

/// The raw baseline of the store rows: SQLite's C API as a careful Swift user calls it, with prepared statements,
/// blobs bound in place (`SQLITE_STATIC`) and nothing else.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens (creating) `path` as the store opens its files: WAL, a 64 MiB journal size limit, `synchronous`,
    /// foreign keys on.
    init(path: String, synchronous: String) throws {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(
            path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw RawSQLiteError(message: "cannot open \(path): \(status)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA journal_size_limit = 67108864")
        try execute("PRAGMA synchronous = \(synchronous)")
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// The raw table: a rowid table with a text primary key (so, like the store's `documents`, a table b-tree
    /// plus a unique key index) and the body blob, nothing else.
    func createTable() throws {
        try execute("CREATE TABLE IF NOT EXISTS t (key TEXT NOT NULL PRIMARY KEY, body BLOB NOT NULL) STRICT")
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "\(status)"
            sqlite3_free(message)
            throw RawSQLiteError(message: "\(sql): \(text)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw RawSQLiteError(message: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return RawStatement(handle: statement, database: self)
    }

    func checkpoint() throws {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

final class RawStatement {
    let handle: OpaquePointer
    let database: RawDatabase

    init(handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ text: String, at index: Int32) {
        // Swift's String → C string bridge is valid only during the call, so SQLite copies it (as the store does).
        _ = sqlite3_bind_text(handle, index, text, -1, hangar_bench_sqlite3_transient())
    }

    /// Runs the statement with `bytes` bound at `index` in place (no copy), then resets it.
    func run(blob bytes: [UInt8], at index: Int32) throws {
        let status = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), hangar_bench_sqlite3_static())
            return sqlite3_step(handle)
        }
        sqlite3_reset(handle)
        guard status == SQLITE_DONE else { throw error(status) }
    }

    /// Steps once: the first column as a fresh byte array (what a caller keeps), or nil when there is no row.
    func firstBlob() throws -> [UInt8]? {
        defer { sqlite3_reset(handle) }
        let status = sqlite3_step(handle)
        if status == SQLITE_DONE { return nil }
        guard status == SQLITE_ROW else { throw error(status) }
        let count = Int(sqlite3_column_bytes(handle, 0))
        guard let pointer = sqlite3_column_blob(handle, 0) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Steps through every row: the first column as text.
    func allTexts() throws -> [String] {
        defer { sqlite3_reset(handle) }
        var texts: [String] = []
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return texts }
            guard status == SQLITE_ROW else { throw error(status) }
            texts.append(String(cString: sqlite3_column_text(handle, 0)))
        }
    }

    private func error(_ status: Int32) -> RawSQLiteError {
        RawSQLiteError(message: "step: \(status) \(String(cString: sqlite3_errmsg(database.handle)))")
    }
}

struct RawSQLiteError: Error, CustomStringConvertible {
    var message: String
    var description: String { "raw SQLite: \(message)" }
}

/// The saves as hand-written code commits them: each envelope encoded and inserted in a transaction of its own.
func rawSavesOneTransactionEach(
    _ database: RawDatabase, _ insert: RawStatement, keys: [String], envelopes: [PropertyList], count: Int
) throws -> Int {
    for index in 0..<count {
        try database.execute("BEGIN IMMEDIATE")
        insert.bind(keys[index], at: 1)
        try insert.run(blob: try envelopes[index].encoded(as: .binary), at: 2)
        try database.execute("COMMIT")
    }
    return count
}
