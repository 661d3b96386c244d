import CSQLite
import Foundation
import Hangar

/// A failed SQLite call: the extended result code, SQLite's message and the statement's SQL.
/// Bound values are never part of it.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What a call on a connection of a closed store fails with (the store maps it to ``HangarError/closed``).
    static let closed = SQLiteError(code: SQLITE_MISUSE, message: "the store is closed", sql: nil)

    let code: Int32
    let message: String
    let sql: String?
    /// The operating system's `errno` behind an I/O failure (`sqlite3_system_errno`), 0 when none.
    var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …) without the extended bits.
    var primaryCode: Int32 { code & 0xFF }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }
}

/// One SQLite connection. Not thread-safe: the store gives each connection to one thread at a time.
final class SQLiteConnection {
    /// How a connection is opened.
    enum Mode {
        case readWrite
        case readOnly
    }

    private let handle: OpaquePointer
    private var statementCache: [String: SQLiteStatement] = [:]
    private let busyTimeout: Int32
    /// The write-ahead log of a file database, and the size at which ``checkpointIfLogExceeds(_:)`` acts next.
    private let logPath: String?
    /// After a checkpoint the readers blocked: the log size, or the moment, at which to try again.
    private var deferredCheckpoint: (size: Int, until: ContinuousClock.Instant)?
    /// Set while a transaction runs, to refuse nested `transaction` calls (SQLite has no nested BEGIN).
    private(set) var isInTransaction = false
    /// Set by ``close()``: the handle is gone, and the store calls nothing on the connection any more.
    private(set) var isClosed = false

    /// Opens (creating when `readWrite`) the database at `path` (`:memory:` for a private in-memory one), through
    /// the registered VFS named `vfs` (SQLite's default when `nil`).
    init(path: String, mode: Mode, busyTimeout: Int32, vfs: String? = nil) throws(SQLiteError) {
        var pointer: OpaquePointer?
        let flags =
            (mode == .readWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let status = sqlite3_open_v2(path, &pointer, flags, vfs)
        guard let pointer else {
            throw SQLiteError(code: status, message: "cannot allocate a connection", sql: nil)
        }
        // sqlite3_open_v2 returns a handle even on failure; it must be closed either way.
        guard status == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(pointer))
            let systemErrno = sqlite3_system_errno(pointer)
            sqlite3_close_v2(pointer)
            throw SQLiteError(code: status, message: message, sql: nil, systemErrno: systemErrno)
        }
        handle = pointer
        self.busyTimeout = busyTimeout
        logPath = path == ":memory:" || path.isEmpty ? nil : path + "-wal"
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
        _ = hangar_sqlite3_enable_defensive(handle)
    }

    deinit { close() }

    /// Closes the connection now, its cached statements first, releasing its file, log and shared memory (a
    /// backup still under way keeps the handle until it finishes, as `sqlite3_close_v2` does). Nothing may be
    /// called on it afterwards; closing twice does nothing.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Statements

    /// Runs one or more statements that bind nothing and return nothing (schema, pragmas).
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(
                code: sqlite3_extended_errcode(handle), message: text, sql: sql,
                systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// A prepared statement for `sql`, reused across calls; reset and with bindings cleared.
    func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try SQLiteStatement(connection: self, handle: handle, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (for pragmas and counts).
    func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    /// SQLite's integrity check: `["ok"]` for a sound file, otherwise what it found damaged (at most `limit`
    /// lines, when given).
    func integrityCheck(limit: Int?) throws(HangarError) -> [String] {
        do throws(SQLiteError) {
            let sql = limit.map { "PRAGMA integrity_check(\($0))" } ?? "PRAGMA integrity_check"
            let statement = try cachedStatement(sql)
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 0)) }
            return lines
        } catch {
            throw HangarError(error)
        }
    }

    /// The first column of the first row of `sql` as text.
    func text(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.text(at: 0) : nil
    }

    /// Whether SQLite opened the database read-only (asked to, or because the file or its file system is).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: Transactions

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// `IMMEDIATE` takes the write lock up front, so a writer never fails half-way on SQLITE_BUSY.
    func transaction<Result, Failure: Error>(
        immediate: Bool,
        _ body: () throws(Failure) -> Result
    ) throws(TransactionFailure<Failure>) -> Result {
        try begin(immediate: immediate, Failure.self)
        defer { isInTransaction = false }
        let result: Result
        do {
            result = try body()
        } catch {
            rollback()
            throw .body(error)
        }
        try commit(Failure.self)
        return result
    }

    /// ``transaction(immediate:_:)`` for a body that may `await`; the connection is this task's meanwhile.
    func transaction<Result>(
        immediate: Bool,
        _ body: () async throws -> Result
    ) async throws(TransactionFailure<any Error>) -> Result {
        try begin(immediate: immediate, (any Error).self)
        defer { isInTransaction = false }
        let result: Result
        do {
            result = try await body()
        } catch {
            rollback()
            throw .body(error)
        }
        try commit((any Error).self)
        return result
    }

    private func begin<Failure>(immediate: Bool, _: Failure.Type) throws(TransactionFailure<Failure>) {
        precondition(!isInTransaction, "Hangar: a store transaction cannot start inside another")
        do {
            // Prepared once and reused: sqlite3_exec would parse BEGIN and COMMIT on every transaction.
            try cachedStatement(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED").run()
        } catch {
            throw .sqlite(error)
        }
        isInTransaction = true
    }

    private func commit<Failure>(_: Failure.Type) throws(TransactionFailure<Failure>) {
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            rollback()
            throw .sqlite(error)
        }
    }

    private func rollback() {
        if sqlite3_get_autocommit(handle) == 0 {
            _ = try? execute("ROLLBACK")
        }
    }

    // MARK: Write groups (``SQLiteWriter``'s group commit)

    /// Whether no transaction is open: SQLite rolls a whole transaction back by itself after some failures
    /// (a full disk, an I/O error), which leaves the connection in autocommit mode.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Starts the transaction a write group shares (`BEGIN IMMEDIATE`); ended by ``commitGroup()`` or
    /// ``rollbackGroup()``.
    func beginGroup() throws(SQLiteError) {
        precondition(!isInTransaction, "Hangar: a store transaction cannot start inside another")
        try cachedStatement("BEGIN IMMEDIATE").run()
        isInTransaction = true
    }

    /// Commits the group's transaction; on failure rolls it back (nothing of it is kept) and throws.
    func commitGroup() throws(SQLiteError) {
        defer { isInTransaction = false }
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls the group's whole transaction back, if SQLite has not already.
    func rollbackGroup() {
        rollback()
        isInTransaction = false
    }

    /// Marks where a write that joins an open group starts.
    func beginMember() throws(SQLiteError) {
        try cachedStatement("SAVEPOINT hangar_write").run()
    }

    /// Keeps what the member since ``beginMember()`` wrote, as part of the group's transaction.
    func keepMember() throws(SQLiteError) {
        try cachedStatement("RELEASE hangar_write").run()
    }

    /// Undoes what the member since ``beginMember()`` wrote, leaving the group's transaction as it was before.
    func undoMember() throws(SQLiteError) {
        try cachedStatement("ROLLBACK TO hangar_write").run()
        try cachedStatement("RELEASE hangar_write").run()
    }

    /// Runs `body` again while it fails with SQLITE_BUSY, for up to the busy timeout: for statements SQLite
    /// does not run the busy handler for. Changing the journal mode is one: the connection has read the
    /// header under a shared lock and then needs an exclusive one, and rather than risk a deadlock SQLite
    /// reports SQLITE_BUSY at once (seen when several stores open a new file at the same moment).
    func retryingWhileBusy<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        let deadline = Date(timeIntervalSinceNow: Double(busyTimeout) / 1000)
        while true {
            do {
                return try body()
            } catch  where error.primaryCode == SQLITE_BUSY && Date() < deadline {
                sqlite3_sleep(Int32.random(in: 1...10))
            }
        }
    }

    /// Empties the write-ahead log when it has grown past `limit` bytes.
    ///
    /// SQLite's automatic checkpoints are passive: under a steady stream of overlapping readers there is never
    /// a moment when the log may start over, and it grows with every commit (by tens of megabytes per
    /// thousand small writes, without bound). A TRUNCATE checkpoint waits (at most 100 ms) for the readers
    /// of older snapshots to finish, without blocking new readers, and then empties the log. When readers
    /// hold on longer it gives up and tries again once the log has grown by another `limit`, or a second later
    /// (SQLite's own checkpoints may restart a log without shrinking its file, which then stops growing: the
    /// timed retry empties it once the readers are gone). Best effort, after a commit: it never fails the write.
    func checkpointIfLogExceeds(_ limit: Int) {
        guard let logPath else { return }
        var info = stat()
        guard stat(logPath, &info) == 0, Int(info.st_size) > limit else { return }
        let now = ContinuousClock.now
        if let deferred = deferredCheckpoint, Int(info.st_size) <= deferred.size, now < deferred.until { return }
        sqlite3_busy_timeout(handle, 100)
        defer { sqlite3_busy_timeout(handle, busyTimeout) }
        let blocked = (try? integer("PRAGMA wal_checkpoint(TRUNCATE)")) ?? 1
        deferredCheckpoint = blocked == 0 ? nil : (Int(info.st_size) + limit, now + .seconds(1))
    }

    /// The error SQLite reports for the last call on this connection.
    func lastError(sql: String?) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql,
            systemErrno: sqlite3_system_errno(handle))
    }

    /// Starts copying this database into `destination` with SQLite's online backup API; the copy advances
    /// with ``SQLiteBackup/step(pages:)``.
    func startBackup(into destination: SQLiteConnection) throws(SQLiteError) -> SQLiteBackup {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.lastError(sql: nil)
        }
        return SQLiteBackup(backup, source: self, destination: destination)
    }
}

/// An online backup under way (`sqlite3_backup`).
///
/// Each step reads the source in a transaction of its own, released when the step returns. Between steps,
/// what is committed through the source connection is copied into the destination as it is written; a commit
/// through any other connection makes the next step start the copy over. Every call, and every commit through
/// the source connection, must be made by one thread at a time (the store's writer lock).
final class SQLiteBackup {
    private let backup: OpaquePointer
    // Kept open while the backup refers to them.
    private let source: SQLiteConnection
    private let destination: SQLiteConnection
    private var finished = false

    fileprivate init(_ backup: OpaquePointer, source: SQLiteConnection, destination: SQLiteConnection) {
        self.backup = backup
        self.source = source
        self.destination = destination
    }

    deinit { finish() }

    /// What a step did.
    enum Progress {
        /// The copy is complete.
        case done
        /// Pages were copied; `copied` of the source's pages are in the destination (fewer than after the
        /// step before when the copy started over).
        case more(copied: Int32)
        /// The source was locked: try again a little later.
        case busy
    }

    /// Copies up to `pages` pages (all of them when negative).
    func step(pages: Int32) throws(SQLiteError) -> Progress {
        let status = sqlite3_backup_step(backup, pages)
        switch status {
        case SQLITE_DONE: return .done
        case SQLITE_OK: return .more(copied: sqlite3_backup_pagecount(backup) - sqlite3_backup_remaining(backup))
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        default:
            // The step's own result: the destination's handle does not always record it (SQLITE_FULL).
            let last = destination.lastError(sql: nil)
            guard last.code & 0xFF != status & 0xFF else { throw last }
            throw SQLiteError(
                code: status, message: String(cString: sqlite3_errstr(status)), sql: nil,
                systemErrno: last.systemErrno)
        }
    }

    /// Ends the backup, rolling the destination back unless it was complete.
    func finish() {
        guard !finished else { return }
        finished = true
        sqlite3_backup_finish(backup)
    }
}

/// Either SQLite failed around the transaction, or the body threw.
enum TransactionFailure<Failure: Error>: Error {
    case sqlite(SQLiteError)
    case body(Failure)
}
