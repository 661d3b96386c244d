import Foundation

/// One connection used by one thread at a time: the store's writer.
final class SerializedConnection: @unchecked Sendable {
    private let lock: NSLock
    private let connection: SQLiteConnection

    /// `lock` is shared by the writers of every store of this process open on the same file (``WriterLocks``).
    init(_ connection: SQLiteConnection, lock: NSLock = NSLock()) {
        self.connection = connection
        self.lock = lock
    }

    /// Identifies the lock: equal for the writers of all stores of this process on one file.
    var lockID: ObjectIdentifier { ObjectIdentifier(lock) }

    func withConnection<Result, Failure: Error>(_ body: (SQLiteConnection) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}

/// One writer lock per database file in this process, shared by every store open on it.
///
/// Two stores of one process on one file would otherwise meet only at SQLite's file lock, whose busy handler
/// polls with sleeps growing to 100 ms: a store whose writers queue on their own lock takes the file lock
/// back at once after each commit, and the other store's writer can starve until its busy timeout fails it
/// with "database is locked" (seen in the concurrency stress test under load). Waiting on one lock instead,
/// the writers take turns. Processes still meet only at SQLite's lock.
enum WriterLocks {
    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let registry = NSLock()
    nonisolated(unsafe) private static var locks: [FileID: NSLock] = [:]

    /// The lock for the file at `path` (which exists: the store has opened it); a private lock if it cannot
    /// be identified.
    static func lock(for path: String) -> NSLock {
        var info = stat()
        guard stat(path, &info) == 0 else { return NSLock() }
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return registry.withLock {
            if let lock = locks[id] { return lock }
            let lock = NSLock()
            locks[id] = lock
            return lock
        }
    }
}

/// Read-only connections, opened as needed up to a maximum, each lent to one reader at a time.
/// Under WAL each reader sees the last commit as of its transaction's start and never blocks the writer.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private let maximum: Int
    private let open: () throws(SQLiteError) -> SQLiteConnection

    init(maximum: Int, open: @escaping () throws(SQLiteError) -> SQLiteConnection) {
        self.maximum = max(1, maximum)
        self.open = open
    }

    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    private func borrow() throws(SQLiteError) -> SQLiteConnection {
        condition.lock()
        while idle.isEmpty && opened >= maximum { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try open()
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: SQLiteConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
