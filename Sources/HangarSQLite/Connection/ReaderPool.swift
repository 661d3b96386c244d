import Foundation
import Hangar
import Synchronization

/// Read-only connections, opened as needed up to a maximum, each lent to one reader at a time, in the order
/// readers came. Under WAL each reader sees the last commit as of its transaction's start and never blocks the
/// writer.
final class ReaderPool: Sendable {
    /// A connection (opened on first use) and the queue where async readers' transactions on it run.
    final class Slot: @unchecked Sendable {
        // Touched only by the borrower the pool lent the slot to.
        private var connection: SQLiteConnection?
        let executor: ConnectionThread

        init(index: Int) {
            executor = ConnectionThread(label: "Hangar.reader \(index)")
        }

        /// Closes the connection, if one was opened; the next use opens another (the pool refuses that once
        /// closed).
        func close() {
            connection?.close()
            connection = nil
        }

        func connection(opening open: () throws(SQLiteError) -> SQLiteConnection) throws(SQLiteError)
            -> SQLiteConnection
        {
            if let connection { return connection }
            let opened = try open()
            connection = opened
            return opened
        }
    }

    private let slots: Lender<Slot>
    private let count: Int
    private let open: @Sendable () throws(SQLiteError) -> SQLiteConnection
    /// Set by ``close()``: no connection is lent or opened afterwards.
    private let closed = Atomic<Bool>(false)

    /// The store's file, for the message of ``HangarError/closed``.
    private let path: String

    init(maximum: Int, path: String, open: @escaping @Sendable () throws(SQLiteError) -> SQLiteConnection) {
        count = max(1, maximum)
        self.path = path
        // Reversed: the pool lends the last given back first, so connections already open are reused first.
        slots = Lender((0..<count).reversed().map(Slot.init(index:)))
        self.open = open
    }

    /// Closes every connection once the reads under way end; every later read fails with
    /// ``HangarError/closed`` before reaching one. Not cancellable: the files are released.
    func close() async {
        closed.store(true, ordering: .releasing)
        let (slots, count) = (slots, count)
        await Task {
            // Holding every slot at once: the reads under way have ended.
            var held: [Slot] = []
            for _ in 0..<count { held.append(await slots.borrowUncancellably()) }
            for slot in held {
                slot.close()
                slots.giveBack(slot)
            }
        }.value
    }

    /// Closes every connection at once, for a store being released: nothing holds the store, so no read is under
    /// way and every slot is free.
    func closeReleased() {
        closed.store(true, ordering: .releasing)
        var held: [Slot] = []
        for _ in 0..<count { held.append(slots.borrow()) }
        for slot in held {
            slot.close()
            slots.giveBack(slot)
        }
    }

    /// The slot's connection, unless the pool is closed.
    private func connection(of slot: Slot) throws -> SQLiteConnection {
        guard !closed.load(ordering: .acquiring) else { throw HangarError(.closed, "The store at \(path) is closed") }
        return try slot.connection(opening: open)
    }

    /// Runs `body` on this thread with a connection, blocking it until one is free.
    func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let slot = slots.borrow()
        defer { slots.giveBack(slot) }
        return try body(try connection(of: slot))
    }

    /// Runs `body` with a connection, on its queue, once one is free; no thread waits meanwhile.
    func withLeasedConnection<Result>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
        let slot = try await slots.lease()
        defer { slots.giveBack(slot) }
        return try await withTaskExecutorPreference(slot.executor) {
            try await body(try connection(of: slot))
        }
    }
}
