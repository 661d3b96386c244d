import Hangar
import PostgresNIO
import Synchronization

/// The read replicas of a store (``PostgresStoreConfiguration/replicas``): a pool for each, and a watch that keeps
/// which of them are fit to serve reads.
///
/// A replica is fit when its last check answered within ``PostgresStoreConfiguration/maximumReplicaLag``, it is in
/// recovery (a standby), it follows the primary's timeline (one still on an old primary's timeline may hold commits
/// the primary never had), and it has replayed at least what the primary had written `maximumReplicaLag` ago. The
/// primary's write position is sampled as often as the replicas are checked, so "behind" is measured by replay
/// position against the primary's own past positions, not by clocks.
final class PostgresReplicaSet: Sendable {
    /// One replica: its pool and what its last check found.
    final class Replica: Sendable {
        let client: PostgresClient
        let name: String
        private let runner: Task<Void, Never>
        /// Whether it may serve reads now.
        let fit = Atomic<Bool>(false)
        /// The newest replay position a check saw, with the timeline it was on: replay only moves forward on a
        /// timeline, so a token at or before it needs no check of its own.
        private let replayed = Mutex<(timeline: Int64, position: UInt64)?>(nil)

        init(client: PostgresClient, name: String) {
            self.client = client
            self.name = name
            runner = Task { await client.run() }
        }

        func close() async {
            runner.cancel()
            await runner.value
        }

        /// Keeps what a check found (a standby's replay position), the newest on its timeline.
        func record(_ state: ReplicaState) {
            guard state.inRecovery else { return }
            replayed.withLock { known in
                if let current = known, current.timeline == state.timeline, current.position >= state.replayed {
                    return
                }
                known = (state.timeline, state.replayed)
            }
        }

        /// Whether a check has already seen this replica replay `position` on `timeline`.
        func hasReplayed(_ position: UInt64, on timeline: Int64) -> Bool {
            replayed.withLock { known in
                guard let known else { return false }
                return known.timeline == timeline && known.position >= position
            }
        }
    }

    /// The primary's write positions, newest last, each with when it was read, and its timeline.
    private struct PrimaryState {
        var samples: [(at: ContinuousClock.Instant, position: UInt64)] = []
        var timeline: Int64?
    }

    let replicas: [Replica]
    private let primary: PostgresPrimary
    private let maximumLag: Duration
    private let logger: Logger
    private let state = Mutex(PrimaryState())
    private let turn = Atomic<Int>(0)
    private let watches = Mutex<[Task<Void, Never>]>([])

    /// How often the primary is sampled and each replica checked.
    var interval: Duration { max(.milliseconds(10), min(.milliseconds(250), maximumLag / 4)) }

    init(
        configurations: [PostgresClient.Configuration], primary: PostgresPrimary, maximumLag: Duration, logger: Logger
    ) {
        self.primary = primary
        self.maximumLag = maximumLag
        self.logger = logger
        replicas = configurations.map { configuration in
            Replica(
                client: PostgresClient(configuration: configuration, backgroundLogger: logger),
                name: "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)")
        }
    }

    /// Starts the watch: the primary's sampling and one check loop per replica (a replica that does not answer
    /// never delays another's check).
    func start() {
        let tasks =
            [Task { [self] in await watchPrimary() }]
            + replicas.map { replica in Task { [self] in await watch(replica) } }
        watches.withLock { $0 = tasks }
    }

    /// Stops the watch and closes every replica's pool.
    func close() async {
        let tasks = watches.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        for replica in replicas { await replica.close() }
    }

    /// A fit replica, taking turns among the fit ones; `nil` when none is fit.
    func pick() -> Replica? {
        let fit = replicas.filter { $0.fit.load(ordering: .relaxed) }
        guard !fit.isEmpty else { return nil }
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return fit[(index % fit.count + fit.count) % fit.count]
    }

    /// Takes `replica` out of use until its next check finds it fit (a read on it failed).
    func setAside(_ replica: Replica) {
        replica.fit.store(false, ordering: .relaxed)
    }

    /// The primary's timeline as last sampled (`nil` before the first sample answered).
    var primaryTimeline: Int64? { state.withLock { $0.timeline } }

    // MARK: The watch

    private static let primarySample = """
        SELECT pg_current_wal_lsn()::text, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint
        """

    /// What a replica is checked for: whether it is a standby, what it replayed, which timeline it follows (its
    /// WAL receiver's, else its last checkpoint's).
    static let replicaCheck = """
        SELECT pg_is_in_recovery(), COALESCE(pg_last_wal_replay_lsn()::text, ''),
            COALESCE((SELECT received_tli FROM pg_stat_wal_receiver), (SELECT timeline_id FROM pg_control_checkpoint()))::bigint
        """

    private func watchPrimary() async {
        while !Task.isCancelled {
            if let (position, timeline) = try? await sample(primary.client) {
                let now = ContinuousClock.now
                let keep = maximumLag * 3
                state.withLock { state in
                    state.timeline = timeline
                    state.samples.append((now, position))
                    state.samples.removeAll { now - $0.at > keep }
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    private func sample(_ client: PostgresClient) async throws -> (UInt64, Int64) {
        try await answer(from: client) { connection in
            let rows = try await connection.rows(
                PostgresQuery(unsafeSQL: Self.primarySample), within: maximumLag, logger: logger)
            guard let row = rows.first else { throw CheckFailed() }
            let (text, timeline) = try row.decode((String, Int64).self)
            guard let position = CommitToken.walPosition(text) else { throw CheckFailed() }
            return (position, timeline)
        }
    }

    /// The position a fit replica must have replayed: the primary's newest sample at least ``maximumLag`` old
    /// (its oldest, while none is that old yet); `nil` before any sample.
    private var requiredPosition: UInt64? {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.samples.last { now - $0.at >= maximumLag }?.position ?? state.samples.first?.position
        }
    }

    private func watch(_ replica: Replica) async {
        while !Task.isCancelled {
            let fit: Bool
            do {
                let found = try await answer(from: replica.client) { connection in
                    try await ReplicaState(connection, within: maximumLag, logger: logger)
                }
                replica.record(found)
                if let required = requiredPosition, let timeline = primaryTimeline {
                    fit = found.inRecovery && found.timeline == timeline && found.replayed >= required
                } else {
                    fit = false
                }
            } catch {
                fit = false
            }
            let was = replica.fit.exchange(fit, ordering: .relaxed)
            if was != fit {
                logger.debug("Replica \(fit ? "in" : "out of") use", metadata: ["replica": .string(replica.name)])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Runs `body` on a connection of `client`, waiting at most ``maximumLag`` for one (an unreachable server).
    private func answer<Value>(
        from client: PostgresClient, _ body: (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let lease = try await PostgresEngine.lease(from: client, timeout: maximumLag)
        defer { lease.release() }
        return try await body(lease.connection)
    }

    private struct CheckFailed: Error {}
}

/// What a replica reports of itself (``PostgresReplicaSet/replicaCheck``).
struct ReplicaState: Sendable {
    let inRecovery: Bool
    let replayed: UInt64
    let timeline: Int64

    /// Asks the server behind `connection`; a failure is the layer's ``Hangar/HangarError`` (an answer not given
    /// within `deadline` is ``Hangar/HangarError/Code/connectionLost``), so a read that met it on a replica is
    /// served by the primary instead.
    init(_ connection: PostgresConnection, within deadline: Duration, logger: Logger) async throws(HangarError) {
        let check = PostgresReplicaSet.replicaCheck
        let rows = try await connection.rows(
            PostgresQuery(unsafeSQL: check), within: deadline, logger: logger, phase: .statement)
        guard let row = rows.first else { throw HangarError(.database, "A replica's check answered no row") }
        let found: (Bool, String, Int64)
        do {
            found = try row.decode((Bool, String, Int64).self)
        } catch {
            throw HangarError.postgres(error, sql: check, phase: .statement)
        }
        let (inRecovery, text, timeline) = found
        self.inRecovery = inRecovery
        replayed = CommitToken.walPosition(text) ?? 0
        self.timeline = timeline
    }
}
