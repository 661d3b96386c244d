import Dispatch
import Foundation
import Hangar
import Synchronization

// The writer's turn. Every use of the writer connection (a write, maintenance, an in-memory store's read, `close()`)
// waits for the turn in one queue, in the order it came, and ends it with ``SQLiteWriter/endTurn()``.
//
// Group commit is the policy of ending a turn. While the group open on the connection has room
// (``SQLiteStoreConfiguration/GroupCommit``) and the next one waiting is a write, the turn passes to that write without
// a commit, and it runs in a savepoint of the same transaction; otherwise the group commits (one flush of the
// write-ahead log for all its writes), its ``GroupOutcome`` is settled and the turn passes on. Every write of a group
// returns only once the group has ended, so none is reported committed before the flush, and a failing COMMIT fails
// them all. A write that throws is undone to its savepoint and fails alone; one after which SQLite rolled the whole
// transaction back (a full disk, an I/O error) fails the group. Anything but a write finds the group committed.
//
// Where a write's body runs: a blocking write's on its caller's thread, an async write's on the writer's thread
// (``SQLiteWriter/executor``), and a write whose body needs no task of its own (``SQLiteWriter/writeInTurn(_:)``: a
// single save or delete, planned beforehand) on the thread of whoever hands it the turn, so that a group of them costs
// no thread switch between its writes.

/// The store's writer: one connection, the queue for its turn, and the group of writes its open transaction holds.
final class SQLiteWriter: @unchecked Sendable {
    let connection: SQLiteConnection
    /// The thread where async writes' bodies run (SQLite blocks: never on the cooperative pool).
    let executor: ConnectionThread
    /// The file's lock, shared by the writers of every store of this process on the file (``WriterLocks``): held
    /// from a group's BEGIN to its end, and by maintenance while it runs.
    private let fileLock: Lender<WriteTurn>
    private let policy: SQLiteStoreConfiguration.GroupCommit
    /// Called with the connection once per committed group, before the turn passes on.
    private let committed: @Sendable (WriteGroup, SQLiteConnection) -> Void

    private let turn = Mutex(TurnQueue())
    // Touched only by the holder of the turn.
    private var openGroup: WriteGroup?
    private var heldFile: WriteTurn?

    init(
        _ connection: SQLiteConnection, fileLock: Lender<WriteTurn>, label: String,
        policy: SQLiteStoreConfiguration.GroupCommit,
        committed: @escaping @Sendable (WriteGroup, SQLiteConnection) -> Void
    ) {
        self.connection = connection
        self.fileLock = fileLock
        self.policy = policy
        self.committed = committed
        executor = ConnectionThread(label: "Hangar.writer " + label)
    }

    /// Identifies the file's lock: equal for the writers of all stores of this process on one file.
    var lockID: ObjectIdentifier { ObjectIdentifier(fileLock) }

    /// How many wait for the turn (for tests).
    var waiting: Int {
        turn.withLock { turn in
            turn.waiting.count { ticket in
                switch ticket.stage {
                case .queued, .placed: true
                case .fresh, .granted, .cancelled, .served: false
                }
            }
        }
    }

    // MARK: Writes

    /// Runs `body` as one write of a group, on this thread, which blocks until the turn is this write's and then
    /// until its group has ended.
    func write<Member: GroupMember>(_ body: (SQLiteConnection) throws -> Member) throws -> Member {
        waitForTurn(joiningGroup: true)
        let (ran, group) = runMember { try body(connection) }
        endTurn()
        let member = try ran.get()
        if let failure = group?.outcome.failureBlocking() { throw failure }
        return member
    }

    /// ``write(_:)`` for async code: the caller waits without a thread, `body` runs on the writer's thread. A task
    /// cancelled while it waits gives up its place and throws `CancellationError`, having written nothing; once the
    /// turn is its, the write runs to its end.
    func write<Member: GroupMember>(_ body: (SQLiteConnection) async throws -> Member) async throws -> Member {
        let ticket = try queue(joiningGroup: true)
        return try await withTaskExecutorPreference(executor) {
            try await waitForTurn(ticket)
            let ran: Result<Member, any Error>
            let group: WriteGroup?
            do {
                let first = try enterGroup()
                do {
                    (ran, group) = keep(try await body(connection), first: first)
                } catch {
                    (ran, group) = (.failure(leave(failed: error, first: first)), nil)
                }
            } catch {
                (ran, group) = (.failure(error), nil)
            }
            endTurn()
            let member = try ran.get()
            if let failure = await group?.outcome.failure() { throw failure }
            return member
        }
    }

    /// ``write(_:)`` for a body that needs no task of its own: it runs on the thread that holds the turn when this
    /// write's place comes (the writer's thread, or the thread of the write before it), and the caller resumes once
    /// the group has ended. A task cancelled before its place comes throws `CancellationError`, having written nothing.
    func writeInTurn<Member: GroupMember & Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Member
    ) async throws -> Member {
        let ticket = Ticket(joinsGroup: true)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Member, any Error>) in
                let run: @Sendable () -> Void = { [self] in
                    let (ran, group) = runMember { try body(connection) }
                    switch (ran, group) {
                    case (.failure(let error), _):
                        continuation.resume(throwing: error)
                    case (.success(let member), nil):
                        continuation.resume(returning: member)
                    case (.success(let member), let group?):
                        group.outcome.whenSettled { failure in
                            if let failure { return continuation.resume(throwing: failure) }
                            continuation.resume(returning: member)
                        }
                    }
                }
                let place = take(ticket) { granted in
                    guard granted else {
                        continuation.resume(throwing: CancellationError())
                        return .tookTheTurn
                    }
                    run()
                    return .ranHere
                }
                switch place {
                case .now:
                    executor.run { [self] in
                        run()
                        endTurn()
                    }
                case .queued: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            cancel(ticket)
        }
    }

    // MARK: Other uses of the connection

    /// Runs `body` with the connection on this thread, which blocks until the turn is its (the group before it
    /// committed); the writers of the file's other stores wait meanwhile.
    func withConnection<Result, Failure: Error>(_ body: (SQLiteConnection) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        waitForTurn(joiningGroup: false)
        let file = fileLock.borrow()
        defer {
            fileLock.giveBack(file)
            endTurn()
        }
        return try body(connection)
    }

    /// ``withConnection(_:)`` for async code: the caller waits without a thread, `body` runs on the writer's thread.
    func withLeasedConnection<Result>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
        let ticket = try queue(joiningGroup: false)
        return try await withTaskExecutorPreference(executor) {
            try await waitForTurn(ticket)
            let file = fileLock.borrow()
            defer {
                fileLock.giveBack(file)
                endTurn()
            }
            return try await body(connection)
        }
    }

    /// Closes the connection once the writes under way (and any waiting before this call) are done; the store
    /// refuses every later one before it reaches the connection. Not cancellable: the files are released.
    func close() async {
        let ticket = Ticket(joinsGroup: false)
        let place = take(ticket, nil)
        // In a task of its own, which nothing cancels, so the wait below ends with the turn.
        await Task(executorPreference: executor) { [self] in
            if place == .queued { try? await waitForTurn(ticket) }
            let file = fileLock.borrow()
            connection.close()
            fileLock.giveBack(file)
            endTurn()
        }.value
    }

    // MARK: The turn

    /// One place in the turn's queue: made before it asks, so that a cancellation coming first is not lost.
    private final class Ticket: @unchecked Sendable {
        /// Whether it is a write, which may join the open group.
        let joinsGroup: Bool
        // Guarded by the turn's mutex.
        var stage = Stage.fresh

        init(joinsGroup: Bool) {
            self.joinsGroup = joinsGroup
        }

        enum Stage {
            case fresh
            /// Waiting: its arrival is called with true once the turn is its, with false once it is cancelled.
            case queued(@Sendable (_ granted: Bool) -> Arrival)
            /// Waiting, its task not yet on the writer's thread, where it takes the turn (``waitForTurn(_:)``).
            case placed
            /// Given the turn while ``placed``.
            case granted
            case cancelled
            case served
        }
    }

    /// What an arrival given the turn did with it.
    private enum Arrival {
        /// It ran its write on the giver's thread: the giver goes on ending the turn.
        case ranHere
        /// It took the turn to its own thread or task, which ends it.
        case tookTheTurn
    }

    private struct TurnQueue {
        var held = false
        var waiting = WaitQueue<Ticket>()
    }

    private enum Place {
        case now, queued, cancelled
    }

    /// Takes the turn at once if nobody holds it; otherwise queues `arrive`, to be called with it (or, without one,
    /// a place that ``waitForTurn(_:)`` waits at).
    private func take(_ ticket: Ticket, _ arrive: (@Sendable (_ granted: Bool) -> Arrival)?) -> Place {
        turn.withLock { turn in
            if case .cancelled = ticket.stage { return .cancelled }
            guard turn.held else {
                turn.held = true
                ticket.stage = .served
                return .now
            }
            ticket.stage = arrive.map { .queued($0) } ?? .placed
            turn.waiting.append(ticket)
            return .queued
        }
    }

    /// Serves `ticket`, taken out of the queue with the turn's mutex held: its arrival, or nil for a cancelled one.
    private static func serve(_ ticket: Ticket) -> (@Sendable (Bool) -> Arrival)? {
        switch ticket.stage {
        case .queued(let arrive):
            ticket.stage = .served
            return arrive
        case .placed:
            ticket.stage = .granted
            return { _ in .tookTheTurn }
        case .fresh, .granted, .cancelled, .served:
            return nil
        }
    }

    /// Gives up `ticket`'s place, calling its arrival with false, if its turn has not come.
    private func cancel(_ ticket: Ticket) {
        let arrive = turn.withLock { _ -> (@Sendable (Bool) -> Arrival)? in
            switch ticket.stage {
            case .fresh:
                ticket.stage = .cancelled
                return nil
            case .queued(let arrive):
                // Left in the queue, where the turn's holder skips it.
                ticket.stage = .cancelled
                return arrive
            case .placed:
                ticket.stage = .cancelled
                return nil
            case .granted, .cancelled, .served:
                return nil
            }
        }
        _ = arrive?(false)
    }

    private func waitForTurn(joiningGroup: Bool) {
        let woken = DispatchSemaphore(value: 0)
        let place = take(Ticket(joinsGroup: joiningGroup)) { _ in
            woken.signal()
            return .tookTheTurn
        }
        if place == .queued { woken.wait() }
    }

    /// An async caller's place, taken where it is: its task may move to the writer's thread only then, since the
    /// write before it may be holding that thread until the turn passes.
    private func queue(joiningGroup: Bool) throws -> Ticket {
        try Task.checkCancellation()
        let ticket = Ticket(joinsGroup: joiningGroup)
        _ = take(ticket, nil)
        return ticket
    }

    /// Waits, without a thread, until `ticket` (from ``queue(joiningGroup:)``) has the turn; the task resumes on its
    /// executor. A task cancelled first gives up its place and throws `CancellationError`.
    private func waitForTurn(_ ticket: Ticket) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = turn.withLock { _ -> Bool? in
                    switch ticket.stage {
                    case .placed:
                        ticket.stage = .queued { granted in
                            if granted {
                                continuation.resume()
                            } else {
                                continuation.resume(throwing: CancellationError())
                            }
                            return .tookTheTurn
                        }
                        return nil
                    case .granted, .served:
                        ticket.stage = .served
                        return true
                    case .fresh, .queued, .cancelled:
                        return false
                    }
                }
                switch granted {
                case nil: break
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            cancel(ticket)
        }
    }

    /// The one waiting next, if it is a write: taken out of the queue (cancelled places before it are dropped).
    private func nextWrite() -> NextWrite {
        turn.withLock { turn in
            while let ticket = turn.waiting.first {
                switch ticket.stage {
                case .queued, .placed:
                    guard ticket.joinsGroup else { return .other }
                    _ = turn.waiting.takeFirst()
                    if let arrive = Self.serve(ticket) { return .write(arrive) }
                default:
                    _ = turn.waiting.takeFirst()
                }
            }
            return .nobody
        }
    }

    private enum NextWrite {
        case write(@Sendable (Bool) -> Arrival)
        case other
        case nobody
    }

    /// The one waiting next, taken out of the queue; nil, having freed the turn, when nobody waits.
    private func nextOrFree() -> (@Sendable (Bool) -> Arrival)? {
        turn.withLock { turn in
            while let ticket = turn.waiting.takeFirst() {
                if let arrive = Self.serve(ticket) { return arrive }
            }
            turn.held = false
            return nil
        }
    }

    /// Ends the holder's turn. While the open group has room, the turn passes to the next write without a commit
    /// (writes that run in the turn run here, one after another), after the policy's window when one is set and
    /// nobody waits yet; otherwise the open group commits, and the turn passes to the next one waiting, or is freed.
    private func endTurn() {
        var waited = false
        while true {
            if let group = openGroup, group.hasRoom(under: policy) {
                switch nextWrite() {
                case .write(let arrive):
                    if arrive(true) == .ranHere { continue }
                    return
                case .nobody where policy.window > .zero && !waited:
                    waited = true
                    let (seconds, attoseconds) = policy.window.components
                    // On the writer's thread or a blocking writer's, never on the cooperative pool.
                    Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
                    continue
                case .nobody, .other:
                    break
                }
            }
            commitOpenGroup()
            guard let arrive = nextOrFree() else { return }
            if arrive(true) == .tookTheTurn { return }
        }
    }

    // MARK: The group, touched by the holder of the turn

    /// Runs `body` as a write of the group: in a savepoint of the open group, or opening one. Answers its result and,
    /// when it was kept, the group whose end it waits for.
    private func runMember<Member: GroupMember>(_ body: () throws -> Member) -> (
        Result<Member, any Error>, WriteGroup?
    ) {
        let first: Bool
        do {
            first = try enterGroup()
        } catch {
            return (.failure(error), nil)
        }
        do {
            return keep(try body(), first: first)
        } catch {
            return (.failure(leave(failed: error, first: first)), nil)
        }
    }

    /// Joins the open group in a savepoint, or opens one (the file's lock, then `BEGIN IMMEDIATE`); true for a
    /// group's first write, which needs no savepoint: nothing else is in its transaction.
    private func enterGroup() throws(HangarError) -> Bool {
        guard !connection.isClosed else { throw HangarError(.closed, "The store is closed") }
        if openGroup != nil {
            do throws(SQLiteError) {
                try connection.beginMember()
            } catch {
                let failure = HangarError(error)
                endGroup(failure)
                throw failure
            }
            return false
        }
        let file = fileLock.borrow()
        do throws(SQLiteError) {
            try connection.beginGroup()
        } catch {
            fileLock.giveBack(file)
            throw HangarError(error)
        }
        heldFile = file
        openGroup = WriteGroup()
        return true
    }

    /// Keeps a write that ran to its end in the group: what it returned and its group, or the failure that
    /// ended the group.
    private func keep<Member: GroupMember>(_ member: Member, first: Bool) -> (Result<Member, any Error>, WriteGroup?) {
        if !first {
            do throws(SQLiteError) {
                try connection.keepMember()
            } catch {
                let failure = HangarError(error)
                endGroup(failure)
                return (.failure(failure), nil)
            }
        }
        openGroup?.add(member.footprint)
        return (.success(member), openGroup)
    }

    /// Undoes a write that threw, to its savepoint (or the whole transaction for a group's first write), and
    /// answers its error. When SQLite has already rolled the transaction back, the writes before it in the group
    /// are gone too: the group fails with `error`.
    private func leave(failed error: any Error, first: Bool) -> any Error {
        guard openGroup != nil else { return error }
        if first {
            connection.rollbackGroup()
            endGroup(nil)
        } else if connection.isAutocommit {
            endGroup(error as? HangarError ?? HangarError(.database, "The write's group was rolled back: \(error)"))
        } else {
            do throws(SQLiteError) {
                try connection.undoMember()
            } catch {
                endGroup(HangarError(error))
            }
        }
        return error
    }

    /// Commits the open group, if any (``committed`` then runs), and ends it.
    private func commitOpenGroup() {
        guard let group = openGroup else { return }
        do throws(SQLiteError) {
            try connection.commitGroup()
            committed(group, connection)
            endGroup(nil)
        } catch {
            endGroup(HangarError(error))
        }
    }

    /// Ends the open group, rolling it back unless it committed (`failure` nil), settles its outcome for the writes
    /// that wait, and gives the file's lock back.
    private func endGroup(_ failure: HangarError?) {
        if failure != nil { connection.rollbackGroup() }
        let group = openGroup
        openGroup = nil
        if let file = heldFile {
            heldFile = nil
            fileLock.giveBack(file)
        }
        group?.outcome.settle(failure)
    }
}
