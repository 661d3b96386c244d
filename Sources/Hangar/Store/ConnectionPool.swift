import Foundation

/// One connection used by one thread at a time: the store's writer.
final class SerializedConnection: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    func withConnection<Result, Failure: Error>(_ body: (SQLiteConnection) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
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
