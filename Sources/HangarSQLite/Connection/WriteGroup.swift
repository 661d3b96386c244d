import Dispatch
import Foundation
import Hangar
import Synchronization

// Group commit: writes that queue for the writer while another runs share that one's transaction, each in a
// savepoint of its own, and one COMMIT (one flush of the write-ahead log) ends them all.
//
// The writer's turn passes from write to write without a commit while the next one waiting is a write of this
// connection (``Lender/handOff(_:toGroup:)``) and the group has room (``SQLiteStoreConfiguration/GroupCommit``).
// A write whose body needs no task of its own (an ``InlineWrite``: a single save or delete, planned beforehand) is
// run by whoever holds the turn when its place comes, on that thread: a group of them costs no thread switch
// between its writes, only one wake-up per write once the group has committed.
// The write that finds no such successor commits the group and settles its ``GroupOutcome``: every write of the
// group returns only then, so none is reported committed before the flush, and a failing COMMIT fails them all.
// A write that throws is undone to its savepoint and fails alone; one after which SQLite has rolled the whole
// transaction back (a full disk, an I/O error) fails the group. Maintenance, readers of an in-memory store and
// `close()` borrow the turn untagged, so a group is always committed before they get it.

/// What one write of a group adds to it.
struct GroupFootprint: Sendable {
    /// The bytes of the bodies it saved.
    var bytes: Int
    /// Whether it recorded a change (the followers are woken once the group commits).
    var recordedChanges: Bool
}

/// A write that has run in a group: its own result and what it added.
protocol GroupMember {
    var footprint: GroupFootprint { get }
}

/// The writes sharing one open transaction. Touched only by the write whose turn it is; its outcome by anyone.
final class WriteGroup: @unchecked Sendable {
    private(set) var writes = 0
    private(set) var bytes = 0
    private(set) var recordedChanges = false
    /// Settled once the group's transaction has committed or been rolled back.
    let outcome = GroupOutcome()

    func add(_ footprint: GroupFootprint) {
        writes += 1
        bytes += footprint.bytes
        recordedChanges = recordedChanges || footprint.recordedChanges
    }

    /// Whether another write may join under `policy`.
    func hasRoom(under policy: SQLiteStoreConfiguration.GroupCommit) -> Bool {
        policy.isEnabled && writes < policy.maximumWrites && bytes < policy.maximumBytes
    }
}

/// How a group ended, for the writes waiting on it: `nil` once committed, the error otherwise.
final class GroupOutcome: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<HangarError?, Never>)
        case thread(DispatchSemaphore)
        case callback(@Sendable (HangarError?) -> Void)
    }

    private enum State {
        case pending([Waiter])
        case settled(HangarError?)
    }

    private let state = Mutex(State.pending([]))

    /// Ends the group: wakes every write waiting and answers the later ones at once.
    func settle(_ failure: HangarError?) {
        let waiters = state.withLock { state -> [Waiter] in
            guard case .pending(let waiters) = state else { return [] }
            state = .settled(failure)
            return waiters
        }
        for waiter in waiters {
            switch waiter {
            case .task(let continuation): continuation.resume(returning: failure)
            case .thread(let semaphore): semaphore.signal()
            case .callback(let callback): callback(failure)
            }
        }
    }

    /// Waits, without a thread, for the group to end; not cancellable: the write may already be committed.
    func failure() async -> HangarError? {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> HangarError?? in
                switch state {
                case .settled(let failure): return .some(failure)
                case .pending(let waiters):
                    state = .pending(waiters + [.task(continuation)])
                    return nil
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Calls `callback` once the group has ended: at once, on this thread, if it has.
    func whenSettled(_ callback: @escaping @Sendable (HangarError?) -> Void) {
        let settled = state.withLock { state -> HangarError?? in
            switch state {
            case .settled(let failure): return .some(failure)
            case .pending(let waiters):
                state = .pending(waiters + [.callback(callback)])
                return nil
            }
        }
        if let settled { callback(settled) }
    }

    /// Blocks this thread until the group ends.
    func failureBlocking() -> HangarError? {
        let semaphore = DispatchSemaphore(value: 0)
        let settled = state.withLock { state -> HangarError?? in
            switch state {
            case .settled(let failure): return .some(failure)
            case .pending(let waiters):
                state = .pending(waiters + [.thread(semaphore)])
                return nil
            }
        }
        if let settled { return settled }
        semaphore.wait()
        return state.withLock { state in
            if case .settled(let failure) = state { return failure }
            return HangarError(.database, "A write group ended without an outcome")
        }
    }
}

/// A write run by whoever holds the writer's turn when its place in the queue comes (``SerializedConnection/withInlineGroupedWrite(_:afterCommit:_:)``).
final class InlineWrite: Sendable {
    /// Runs the write in the open group (or opens one) and arranges for its caller to be answered.
    fileprivate let run: @Sendable (SerializedConnection) -> Void

    fileprivate init(run: @escaping @Sendable (SerializedConnection) -> Void) {
        self.run = run
    }
}

extension SerializedConnection {
    /// The tag of this connection's writes in the lock's queue: the turn passes without a commit only to them.
    private var groupID: ObjectIdentifier { ObjectIdentifier(self) }

    /// How a write's turn ended.
    private enum TurnEnd {
        /// The turn went to the next write of the group, which commits it (or passes it on).
        case passed(WriteGroup)
        /// This write committed the group (`nil`) or saw its COMMIT fail.
        case committed(HangarError?)
    }

    /// Runs `body` as one write of a group, on the writer's queue once the turn is this caller's: it joins the
    /// open group (in a savepoint) or opens one, and returns once the group has committed. `afterCommit` runs
    /// once per committed group, on the connection, before the turn is given back.
    func withGroupedWrite<Member: GroupMember>(
        _ policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: @escaping @Sendable (SQLiteConnection, WriteGroup) -> Void,
        _ body: (SQLiteConnection) async throws -> Member
    ) async throws -> Member {
        let turn = try await lock.lease(group: groupID)
        return try await withTaskExecutorPreference(executor) {
            let ran: Result<Member, any Error>
            do {
                let first = try enterGroup()
                do {
                    ran = .success(try keep(await body(connection), first: first))
                } catch {
                    leave(failed: error, first: first)
                    ran = .failure(error)
                }
            } catch {
                ran = .failure(error)
            }
            switch endTurn(turn, under: policy, afterCommit: afterCommit) {
            case .passed(let group):
                let member = try ran.get()
                if let failure = await group.outcome.failure() { throw failure }
                return member
            case .committed(let failure):
                let member = try ran.get()
                if let failure { throw failure }
                return member
            }
        }
    }

    /// ``withGroupedWrite(_:afterCommit:_:)`` on this thread, which blocks until the turn and the group's end.
    func withGroupedWrite<Member: GroupMember>(
        _ policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: @escaping @Sendable (SQLiteConnection, WriteGroup) -> Void,
        _ body: (SQLiteConnection) throws -> Member
    ) throws -> Member {
        let turn = lock.borrow(group: groupID)
        let ran = runMember { try body(connection) }
        switch endTurn(turn, under: policy, afterCommit: afterCommit) {
        case .passed(let group):
            let member = try ran.get()
            if let failure = group.outcome.failureBlocking() { throw failure }
            return member
        case .committed(let failure):
            let member = try ran.get()
            if let failure { throw failure }
            return member
        }
    }

    /// ``withGroupedWrite(_:afterCommit:_:)`` for a body that needs no task of its own: it runs on the thread that
    /// holds the turn when this write's place comes (the writer's queue, or the thread of the write before it),
    /// and the caller is resumed once the group has ended. A task cancelled before its place comes throws
    /// `CancellationError`, having written nothing.
    func withInlineGroupedWrite<Member: GroupMember & Sendable>(
        _ policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: @escaping @Sendable (SQLiteConnection, WriteGroup) -> Void,
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Member
    ) async throws -> Member {
        let ticket = Lender<WriteTurn>.Ticket(group: groupID)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Member, any Error>) in
                let write = InlineWrite { writer in
                    switch writer.runMember({ try body(writer.connection) }) {
                    case .failure(let error):
                        continuation.resume(throwing: error)
                    case .success(let member):
                        // A write kept in the group waits for the group's end; `keep` leaves the group open.
                        guard let group = writer.openGroup else { return continuation.resume(returning: member) }
                        group.outcome.whenSettled { failure in
                            if let failure { return continuation.resume(throwing: failure) }
                            continuation.resume(returning: member)
                        }
                    }
                }
                ticket.inlineWrite = write
                lock.borrow(ticket) { [self] turn in
                    guard let turn else { return continuation.resume(throwing: CancellationError()) }
                    // The turn came straight to this write (nobody held it): it leads a group on the writer's queue.
                    executor.run {
                        write.run(self)
                        _ = self.endTurn(turn, under: policy, afterCommit: afterCommit)
                    }
                }
            }
        } onCancel: {
            lock.cancel(ticket)
        }
    }

    // MARK: The steps, each run by the write whose turn it is

    /// Runs `body` as a write of the group: in a savepoint of the open group, or opening one.
    private func runMember<Member: GroupMember>(_ body: () throws -> Member) -> Result<Member, any Error> {
        let first: Bool
        do {
            first = try enterGroup()
        } catch {
            return .failure(error)
        }
        do {
            return .success(try keep(body(), first: first))
        } catch {
            leave(failed: error, first: first)
            return .failure(error)
        }
    }

    /// Ends a write's turn: while the group has room, runs the inline writes queued next and passes the turn to the
    /// next write of the group if one waits (after the policy's window, when one is set and nobody waits yet);
    /// otherwise commits the open group and gives the turn back.
    private func endTurn(
        _ turn: WriteTurn, under policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: (SQLiteConnection, WriteGroup) -> Void
    ) -> TurnEnd {
        var waited = false
        while let group = openGroup, group.hasRoom(under: policy) {
            switch lock.handOff(turn, toGroup: groupID) {
            case .handedOff:
                return .passed(group)
            case .runHere(let write):
                write.run(self)
            case .kept:
                guard policy.window > .zero, !waited else { return commit(turn, afterCommit: afterCommit) }
                waited = true
                let (seconds, attoseconds) = policy.window.components
                // On the writer's queue or a blocking writer's thread, never on the cooperative pool.
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            }
        }
        return commit(turn, afterCommit: afterCommit)
    }

    /// Commits the open group, if any, settles its outcome and gives the turn back.
    private func commit(_ turn: WriteTurn, afterCommit: (SQLiteConnection, WriteGroup) -> Void) -> TurnEnd {
        let failure = commitOpenGroup(afterCommit: afterCommit)
        lock.giveBack(turn)
        return .committed(failure)
    }

    /// Joins the open group in a savepoint, or opens a group (`BEGIN IMMEDIATE`); true for a group's first write,
    /// which needs no savepoint: nothing else is in its transaction.
    private func enterGroup() throws(HangarError) -> Bool {
        guard !connection.isClosed else { throw HangarError(.closed, "The store is closed") }
        if openGroup != nil {
            do throws(SQLiteError) {
                try connection.beginMember()
            } catch {
                let failure = HangarError(error)
                abortGroup(failure)
                throw failure
            }
            return false
        }
        do throws(SQLiteError) {
            try connection.beginGroup()
        } catch {
            throw HangarError(error)
        }
        openGroup = WriteGroup()
        return true
    }

    /// Keeps a write that ran to its end in the group.
    private func keep<Member: GroupMember>(_ member: Member, first: Bool) throws(HangarError) -> Member {
        if !first {
            do throws(SQLiteError) {
                try connection.keepMember()
            } catch {
                let failure = HangarError(error)
                abortGroup(failure)
                throw failure
            }
        }
        openGroup?.add(member.footprint)
        return member
    }

    /// Undoes a write that threw: to its savepoint, or the whole transaction for a group's first write. When
    /// SQLite has already rolled the transaction back, the writes before it in the group are gone too: the group
    /// fails with `error`.
    private func leave(failed error: any Error, first: Bool) {
        guard let group = openGroup else { return }
        if first {
            connection.rollbackGroup()
            openGroup = nil
            group.outcome.settle(nil)
            return
        }
        if connection.isAutocommit {
            abortGroup(Self.groupFailure(error))
            return
        }
        do throws(SQLiteError) {
            try connection.undoMember()
        } catch {
            abortGroup(HangarError(error))
        }
    }

    /// Rolls the open group back and fails every write of it with `failure`.
    private func abortGroup(_ failure: HangarError) {
        connection.rollbackGroup()
        let group = openGroup
        openGroup = nil
        group?.outcome.settle(failure)
    }

    /// Commits the open group, if any, and settles its outcome; returns the commit's failure.
    private func commitOpenGroup(afterCommit: (SQLiteConnection, WriteGroup) -> Void) -> HangarError? {
        guard let group = openGroup else { return nil }
        openGroup = nil
        var failure: HangarError?
        do throws(SQLiteError) {
            try connection.commitGroup()
            afterCommit(connection, group)
        } catch {
            failure = HangarError(error)
        }
        group.outcome.settle(failure)
        return failure
    }

    /// What the other writes of a group are told when one write's failure rolled the whole transaction back.
    private static func groupFailure(_ error: any Error) -> HangarError {
        if let error = error as? HangarError { return error }
        return HangarError(.database, "The write's group was rolled back: \(error)")
    }
}
