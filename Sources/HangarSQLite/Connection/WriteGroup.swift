import Dispatch
import Foundation
import Hangar
import Synchronization

// Group commit: writes that queue for the writer while another runs share that one's transaction, each in a
// savepoint of its own, and one COMMIT (one flush of the write-ahead log) ends them all.
//
// The writer's turn passes from write to write without a commit while the next one waiting is a write of this
// connection (``Lender/handOff(_:toGroup:)``) and the group has room (``SQLiteStoreConfiguration/GroupCommit``).
// The write that finds no such successor commits the group and settles its ``GroupOutcome``: every write of the
// group returns only then, so none is reported committed before the flush, and a failing COMMIT fails them all.
// A write that throws is undone to its savepoint and fails alone; one after which SQLite has rolled the whole
// transaction back (a full disk, an I/O error) fails the group. Maintenance, readers of an in-memory store and
// `close()` borrow the turn untagged, so a group is always committed before they get it.

/// What one write of a group adds to it.
struct GroupFootprint {
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

extension SerializedConnection {
    /// The tag of this connection's writes in the lock's queue: the turn passes without a commit only to them.
    private var groupID: ObjectIdentifier { ObjectIdentifier(self) }

    /// Runs `body` as one write of a group, on the writer's queue once the turn is this caller's: it joins the
    /// open group (in a savepoint) or opens one, and returns once the group has committed. `afterCommit` runs
    /// once per committed group, on the connection, before the turn is given back.
    func withGroupedWrite<Member: GroupMember>(
        _ policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: (SQLiteConnection, WriteGroup) -> Void,
        _ body: (SQLiteConnection) async throws -> Member
    ) async throws -> Member {
        let turn = try await lock.borrow(group: groupID) { turn, continuation in continuation.resume(returning: turn) }
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
            if let group = await handOff(turn, under: policy) {
                let member = try ran.get()
                if let failure = await group.outcome.failure() { throw failure }
                return member
            }
            let failure = commitOpenGroup(afterCommit: afterCommit)
            lock.giveBack(turn)
            let member = try ran.get()
            if let failure { throw failure }
            return member
        }
    }

    /// ``withGroupedWrite(_:afterCommit:_:)`` on this thread, which blocks until the turn and the group's end.
    func withGroupedWrite<Member: GroupMember>(
        _ policy: SQLiteStoreConfiguration.GroupCommit,
        afterCommit: (SQLiteConnection, WriteGroup) -> Void,
        _ body: (SQLiteConnection) throws -> Member
    ) throws -> Member {
        let turn = lock.borrow(group: groupID)
        let ran: Result<Member, any Error>
        do {
            let first = try enterGroup()
            do {
                ran = .success(try keep(body(connection), first: first))
            } catch {
                leave(failed: error, first: first)
                ran = .failure(error)
            }
        } catch {
            ran = .failure(error)
        }
        if let group = handOffBlocking(turn, under: policy) {
            let member = try ran.get()
            if let failure = group.outcome.failureBlocking() { throw failure }
            return member
        }
        let failure = commitOpenGroup(afterCommit: afterCommit)
        lock.giveBack(turn)
        let member = try ran.get()
        if let failure { throw failure }
        return member
    }

    // MARK: The steps, each run by the write whose turn it is

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

    /// Passes the turn, with the open group, to the next write of this connection when the group has room
    /// (after the policy's window, when one is set and nobody waits yet); returns the group it passed, or nil
    /// when this write is to commit.
    private func handOff(_ turn: WriteTurn, under policy: SQLiteStoreConfiguration.GroupCommit) async -> WriteGroup? {
        guard let group = openGroup, group.hasRoom(under: policy) else { return nil }
        if lock.handOff(turn, toGroup: groupID) { return group }
        guard policy.window > .zero else { return nil }
        try? await Task.sleep(for: policy.window)
        return lock.handOff(turn, toGroup: groupID) ? group : nil
    }

    private func handOffBlocking(_ turn: WriteTurn, under policy: SQLiteStoreConfiguration.GroupCommit)
        -> WriteGroup?
    {
        guard let group = openGroup, group.hasRoom(under: policy) else { return nil }
        if lock.handOff(turn, toGroup: groupID) { return group }
        guard policy.window > .zero else { return nil }
        let (seconds, attoseconds) = policy.window.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        return lock.handOff(turn, toGroup: groupID) ? group : nil
    }

    /// What the other writes of a group are told when one write's failure rolled the whole transaction back.
    private static func groupFailure(_ error: any Error) -> HangarError {
        if let error = error as? HangarError { return error }
        return HangarError(.database, "The write's group was rolled back: \(error)")
    }
}
