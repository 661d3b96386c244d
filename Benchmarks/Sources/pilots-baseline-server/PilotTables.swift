import BenchSQLite
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The baseline's storage: a plain table `pilots(key, revision, body)`, the body a binary plist.
protocol PilotTable: Sendable {
    /// The pilot's revision and stored body, or nil when there is none.
    func read(key: String) async throws -> (revision: Int64, body: [UInt8])?
    /// Stores a new pilot at revision 1; nil when the key exists.
    func create(key: String, body: [UInt8]) async throws -> Int64?
    /// Replaces the pilot when its revision is still `expected`; the new revision, or nil when it is not.
    func update(key: String, expected: Int64, body: [UInt8]) async throws -> Int64?
}

struct TableError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: SQLite

/// One connection to the file, with the statements an app team prepares once. `@unchecked Sendable`: it moves
/// between tasks, but only one borrower (under the writer lock, or lent from the reader pool) uses it at a time.
final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw TableError("cannot open \(path)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 10_000)
        // WAL and synchronous = FULL: the store's defaults, so a commit waits for the same thing in both.
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func error(_ sql: String) -> TableError {
        TableError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// The prepared statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            return statement
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(sql)
        }
        statements[sql] = statement
        return statement
    }

    func bind(_ text: String, _ index: Int32, in statement: OpaquePointer) {
        sqlite3_bind_text(statement, index, text, -1, hangar_bench_sqlite3_transient())
    }

    func bind(_ bytes: [UInt8], _ index: Int32, in statement: OpaquePointer) {
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), hangar_bench_sqlite3_transient())
        }
    }
}

/// The table in one SQLite file (WAL): one writer connection behind a lock, reader connections lent one at a
/// time (opened as needed), the calls made right in the request's task, as an app does with the C API.
final class SQLitePilotTable: PilotTable {
    private let path: String
    private let writer: Mutex<SQLiteConnection>
    private let readers = Mutex<[SQLiteConnection]>([])

    init(path: String) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path)
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS pilots (key TEXT PRIMARY KEY, revision INTEGER NOT NULL, body BLOB NOT NULL)")
        writer = Mutex(connection)
    }

    func read(key: String) async throws -> (revision: Int64, body: [UInt8])? {
        let connection = try readers.withLock { $0.popLast() } ?? SQLiteConnection(path: path)
        defer { readers.withLock { $0.append(connection) } }
        let sql = "SELECT revision, body FROM pilots WHERE key = ?"
        let statement = try connection.statement(sql)
        connection.bind(key, 1, in: statement)
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            let revision = sqlite3_column_int64(statement, 0)
            let count = Int(sqlite3_column_bytes(statement, 1))
            let body = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                if count > 0, let blob = sqlite3_column_blob(statement, 1) {
                    buffer.baseAddress?.initialize(from: blob.assumingMemoryBound(to: UInt8.self), count: count)
                }
                initialized = count
            }
            sqlite3_reset(statement)
            return (revision, body)
        case SQLITE_DONE:
            sqlite3_reset(statement)
            return nil
        default:
            sqlite3_reset(statement)
            throw connection.error(sql)
        }
    }

    func create(key: String, body: [UInt8]) async throws -> Int64? {
        try write("INSERT INTO pilots (key, revision, body) VALUES (?, 1, ?) ON CONFLICT (key) DO NOTHING") {
            connection, statement in
            connection.bind(key, 1, in: statement)
            connection.bind(body, 2, in: statement)
        }.map { _ in 1 }
    }

    func update(key: String, expected: Int64, body: [UInt8]) async throws -> Int64? {
        try write("UPDATE pilots SET revision = revision + 1, body = ? WHERE key = ? AND revision = ?") {
            connection, statement in
            connection.bind(body, 1, in: statement)
            connection.bind(key, 2, in: statement)
            sqlite3_bind_int64(statement, 3, expected)
        }.map { _ in expected + 1 }
    }

    /// Runs one statement in `BEGIN IMMEDIATE` … `COMMIT` on the writer; nil when it changed no row.
    private func write(_ sql: String, bind: (SQLiteConnection, OpaquePointer) -> Void) throws -> Void? {
        try writer.withLock { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let statement = try connection.statement(sql)
                bind(connection, statement)
                let status = sqlite3_step(statement)
                sqlite3_reset(statement)
                guard status == SQLITE_DONE else { throw connection.error(sql) }
                let changed = sqlite3_changes(connection.handle) == 1
                try connection.execute("COMMIT")
                return changed ? () : nil
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}

// MARK: PostgreSQL

/// The table in a schema of a PostgreSQL database (`bytea` bodies), through postgres-nio's pooled client.
struct PostgresPilotTable: PilotTable {
    let client: PostgresClient
    let table: String
    let logger: Logger

    /// Creates the schema and table when missing. `client` must be running.
    init(client: PostgresClient, schema: String, logger: Logger) async throws {
        self.client = client
        self.logger = logger
        let quoted = "\"\(schema.replacingOccurrences(of: "\"", with: "\"\""))\""
        table = "\(quoted).pilots"
        _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(quoted)"), logger: logger)
        _ = try await client.query(
            PostgresQuery(
                unsafeSQL:
                    "CREATE TABLE IF NOT EXISTS \(table) (key text PRIMARY KEY, revision bigint NOT NULL, body bytea NOT NULL)"
            ), logger: logger)
    }

    func read(key: String) async throws -> (revision: Int64, body: [UInt8])? {
        var query = PostgresQuery(unsafeSQL: "SELECT revision, body FROM \(table) WHERE key = $1")
        query.binds.append(key)
        let rows = try await client.query(query, logger: logger)
        for try await (revision, body) in rows.decode((Int64, ByteBuffer).self) {
            return (revision, Array(buffer: body))
        }
        return nil
    }

    func create(key: String, body: [UInt8]) async throws -> Int64? {
        var query = PostgresQuery(
            unsafeSQL:
                "INSERT INTO \(table) (key, revision, body) VALUES ($1, 1, $2) ON CONFLICT (key) DO NOTHING RETURNING revision"
        )
        query.binds.append(key)
        query.binds.append(ByteBuffer(bytes: body))
        return try await firstRevision(query)
    }

    func update(key: String, expected: Int64, body: [UInt8]) async throws -> Int64? {
        var query = PostgresQuery(
            unsafeSQL:
                "UPDATE \(table) SET revision = revision + 1, body = $3 WHERE key = $1 AND revision = $2 RETURNING revision"
        )
        query.binds.append(key)
        query.binds.append(expected)
        query.binds.append(ByteBuffer(bytes: body))
        return try await firstRevision(query)
    }

    /// Runs `query` in `BEGIN` … `COMMIT`; the revision it returned, if any.
    private func firstRevision(_ query: PostgresQuery) async throws -> Int64? {
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(query, logger: logger)
            var revision: Int64?
            for try await (value) in rows.decode(Int64.self) { revision = value }
            return revision
        }
    }
}
