package import Hangar
import PostgresNIO

// Where a read runs, in one place: every read of the store (``PostgresStore/read(_:)``, point loads, lists,
// queries, the feed its followers read) comes through ``PostgresEngine/withRead(after:_:token:isolation:_:)``, so a
// read added later is spread over the replicas, honours tokens and falls back to the primary the same way.

/// Receives the ``Hangar/CommitToken`` of a transaction's state (``PostgresEngine/withTransaction``'s `token:`).
package final class CommitTokenSlot {
    /// The token, once the transaction ended.
    package var token: CommitToken?

    package init() {}
}

/// What a replica must have replayed before a read begins on it, and how long to wait for it.
package struct ReplayGate: Sendable {
    /// The WAL position (a token's), `nil` for none.
    let position: UInt64?
    /// The primary's timeline: the replica must follow it.
    let timeline: Int64?
    /// How long to wait for the replay (``PostgresStoreConfiguration/replicaWait``).
    let wait: Duration
    /// How long to wait for one of the replica's connections.
    let acquireTimeout: Duration
    /// The replica the read runs on, whose replay its checks have seen.
    let replica: PostgresReplicaSet.Replica
}

/// The replica had not replayed the token's position within the wait: the primary serves the read.
struct ReplicaBehind: Error {}

extension PostgresEngine {
    /// Runs the read `body` on a fit replica (one that has replayed `after`'s WAL position within
    /// ``PostgresStoreConfiguration/replicaWait``), else on the primary; `token` receives the token of what it saw.
    /// A replica that fails (unreachable, lost, a query cancelled by its recovery) is set aside and the primary runs
    /// `body` again from the start: a read has no effect, so running it twice is safe.
    package func withRead<Result>(
        after: CommitToken?, _ options: PostgresTransactionOptions = .read, token: CommitTokenSlot? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresTransaction) async throws -> sending Result
    ) async throws -> sending Result {
        // A token without a WAL position (from another engine) says nothing a replica can check: the primary.
        if let replicaSet, after == nil || after?.walPosition != nil, let replica = replicaSet.pick() {
            let gate = ReplayGate(
                position: after?.walPosition, timeline: replicaSet.primaryTimeline, wait: configuration.replicaWait,
                acquireTimeout: configuration.maximumReplicaLag, replica: replica)
            do {
                return try await withTransaction(
                    options, on: replica.client, gate: gate, token: token, isolation: isolation, body)
            } catch is ReplicaBehind {
                instruments.count("hangar_replica_wait_expired_total")
            } catch let error as HangarError where Self.isReplicaFailure(error) {
                instruments.count("hangar_replica_failures_total")
                instruments.logger.warning(
                    "A replica failed a read; the primary serves it",
                    metadata: ["replica": .string(replica.name), "code": .string(error.code.description)])
                replicaSet.setAside(replica)
            }
        }
        return try await withTransaction(options, token: token, isolation: isolation, body)
    }

    /// Whether a read's failure on a replica is the replica's (the primary may serve it), not the read's own.
    private static func isReplicaFailure(_ error: HangarError) -> Bool {
        [.connectionLost, .outcomeUnknown, .timeout, .serializationFailure, .closed].contains(error.code)
    }

    /// Waits, polling, until the server behind `connection` follows `gate`'s timeline and has replayed its
    /// position (at once when a check has seen it replayed); throws ``ReplicaBehind`` once ``ReplayGate/wait``
    /// passed without it.
    func waitForReplay(of gate: ReplayGate, on connection: PostgresConnection) async throws {
        guard let position = gate.position else { return }
        #if HANGAR_PLANTED_FAULTS
            if PlantedFault.isPlanted(.noTokenWait) { return }
        #endif
        // A position a check (the watch's or a read's) has seen replayed needs no round trip of its own.
        if let timeline = gate.timeline, gate.replica.hasReplayed(position, on: timeline) { return }
        let deadline = ContinuousClock.now + gate.wait
        while true {
            let state = try await ReplicaState(connection, within: configuration.maximumReplicaLag, logger: logger)
            gate.replica.record(state)
            if !state.inRecovery { return }  // promoted since it was checked: it has everything it ever had
            if state.timeline == gate.timeline, state.replayed >= position { return }
            guard ContinuousClock.now < deadline else { throw ReplicaBehind() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The token of what `connection`'s session sees now: at least the state of the transaction that just ended on
    /// it (its WAL position is read after it). After a write, it is also what confirms the write's commit: a
    /// statement in autocommit is answered before it commits (the commit, and its wait for a synchronous standby,
    /// come at the protocol's Sync, whose end the token's answer follows). When it cannot be read, the write's
    /// outcome is reported unknown to its caller.
    func readToken(on connection: PostgresConnection, afterWrite: Bool) async throws(HangarError) -> CommitToken {
        let statement = sql.changes.token
        let transaction = PostgresTransaction(
            connection: connection, sql: sql, options: .singleRead, logger: logger,
            deadline: configuration.answerDeadline)
        do throws(HangarError) {
            guard let row = try await transaction.query(statement).first else {
                throw HangarError(.database, "The store's change counter is missing", sql: statement)
            }
            let (text, sequence) = try transaction.decode(row, statement: statement) {
                try $0.decode((String?, Int64?).self)
            }
            return CommitToken(changeSequence: Int(sequence ?? 0), walPosition: text.flatMap(CommitToken.walPosition))
        } catch {
            guard afterWrite else { throw error }
            throw HangarError(
                .outcomeUnknown,
                "The write was answered, but the connection was lost before its commit was confirmed (and its "
                    + "token read): it may or may not be committed; read it again to see", underlying: error)
        }
    }
}
