import Hangar
import PostgresNIO
import Synchronization

/// The servers that may be the store's primary (``PostgresStoreConfiguration/client`` and
/// ``PostgresStoreConfiguration/failoverHosts``), a pool for each, and which of them is the primary now.
///
/// With one server it is the primary, unchecked, as before failover existed. With several, a watch asks each, about
/// every ``checkInterval``, whether it is in recovery (`pg_is_in_recovery()`) and on which timeline it writes: the
/// primary in use is one that answered "not in recovery", the newest timeline's when two do (a promoted standby
/// writes on a timeline after the one it followed; the old primary, if it ever came back, on the old one), the one
/// in use on a tie. A server in recovery is never the primary, so nothing is written to a standby; until one
/// server has answered, transactions wait (``lease(timeout:)``).
final class PostgresPrimary: Sendable {
    /// One server: its pool and what its last check found.
    final class Host: Sendable {
        let client: PostgresClient
        let configuration: PostgresClient.Configuration
        let name: String
        private let runner: Task<Void, Never>

        init(configuration: PostgresClient.Configuration, logger: Logger) {
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            self.client = client
            self.configuration = configuration
            name = "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
            runner = Task { await client.run() }
        }

        func cancel() { runner.cancel() }

        func close() async {
            runner.cancel()
            await runner.value
        }
    }

    /// What a server's last check found: the timeline it writes on when it is a primary, `nil` when it is in
    /// recovery or did not answer.
    private typealias Found = Int64?

    let hosts: [Host]
    /// The index of the primary in use in ``hosts``; -1 while none is known.
    private let current: Atomic<Int>
    /// How many times the primary in use changed (the change feed's listener listens again when it does).
    private let switches = Atomic<Int>(0)
    private let found: Mutex<[Found]>
    private let watches = Mutex<[Task<Void, Never>]>([])
    private let logger: Logger
    private let instruments: StoreInstruments

    /// How often each server is checked, and how long a check may take.
    let checkInterval = Duration.milliseconds(250)
    let checkDeadline = Duration.seconds(1)
    /// How long one attempt to borrow a connection of the primary in use waits before the choice is looked at
    /// again (a primary that went away leaves its pool waiting without end).
    let leaseSlice = Duration.milliseconds(500)

    init(configurations: [PostgresClient.Configuration], logger: Logger, instruments: StoreInstruments) {
        self.logger = logger
        self.instruments = instruments
        hosts = configurations.map { Host(configuration: $0, logger: logger) }
        current = Atomic(configurations.count == 1 ? 0 : -1)
        found = Mutex(Array(repeating: nil, count: configurations.count))
    }

    /// Whether there are several servers to choose among.
    var isSeveral: Bool { hosts.count > 1 }

    /// The primary in use; `nil` while no server answered as one.
    var host: Host? {
        let index = current.load(ordering: .acquiring)
        return index >= 0 ? hosts[index] : nil
    }

    /// The pool of the primary in use (the first server's, before one is known).
    var client: PostgresClient { (host ?? hosts[0]).client }

    /// A number that changes whenever the primary in use does.
    var generation: Int { switches.load(ordering: .acquiring) }

    /// Starts the watch (only with several servers): one check loop per server, so one that does not answer never
    /// delays another's check.
    func start() {
        guard isSeveral else { return }
        let tasks = hosts.indices.map { index in Task { [self] in await watch(index) } }
        watches.withLock { $0 = tasks }
    }

    /// Stops the watch and closes every pool, without waiting (the engine released without ``close()``).
    func cancel() {
        watches.withLock { tasks in for task in tasks { task.cancel() } }
        for host in hosts { host.cancel() }
    }

    /// Stops the watch and closes every pool.
    func close() async {
        let tasks = watches.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        for host in hosts { await host.close() }
    }

    /// Borrows a connection of the primary in use, waiting at most `timeout` in all: with several servers, in
    /// slices of ``leaseSlice``, so a borrow waiting on a primary that went away moves to the promoted one as soon as
    /// the watch found it.
    ///
    /// - Throws: ``HangarError/Code/connectionLost`` when no primary lent a connection in time (nothing ran).
    func lease(timeout: Duration) async throws(HangarError) -> PostgresEngine.Lease {
        guard isSeveral else { return try await PostgresEngine.lease(from: hosts[0].client, timeout: timeout) }
        let deadline = ContinuousClock.now + timeout
        var lastError: HangarError?
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, !Task.isCancelled else {
                throw lastError
                    ?? HangarError(
                        .connectionLost,
                        "None of the PostgreSQL servers answered as the primary within \(timeout); nothing ran")
            }
            guard let host else {
                try? await Task.sleep(for: min(remaining, .milliseconds(20)))
                continue
            }
            do {
                return try await PostgresEngine.lease(from: host.client, timeout: min(remaining, leaseSlice))
            } catch let error where error.code == .connectionLost {
                // The pool may refuse at once (it could not connect): not a busy loop while the watch looks.
                lastError = error
                try? await Task.sleep(for: min(deadline - ContinuousClock.now, .milliseconds(20)))
            }
        }
    }

    // MARK: The watch

    /// What a server is checked for: whether it is in recovery, and, when it is not, the timeline it writes on
    /// (its current WAL file's; `pg_current_wal_lsn()` fails in recovery, so it is asked only of a primary).
    static let check = """
        SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN 0
            ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END
        """

    private func watch(_ index: Int) async {
        let host = hosts[index]
        while !Task.isCancelled {
            let timeline: Int64?
            do {
                let lease = try await PostgresEngine.lease(from: host.client, timeout: checkDeadline)
                defer { lease.release() }
                let rows = try await lease.connection.rows(
                    PostgresQuery(unsafeSQL: Self.check), within: checkDeadline, logger: logger)
                guard let row = rows.first else { throw CheckFailed() }
                let (inRecovery, written) = try row.decode((Bool, Int64).self)
                timeline = inRecovery ? nil : written
            } catch {
                timeline = nil
            }
            note(timeline, of: index)
            try? await Task.sleep(for: checkInterval)
        }
    }

    /// Notes what server `index` answered, then makes the primary in use the server that answered as one on the
    /// newest timeline (the one in use on a tie, else the first in the URL's order); keeps the one in use while none
    /// did.
    private func note(_ timeline: Int64?, of index: Int) {
        let switched: (from: Int, to: Int, timeline: Int64)? = found.withLock { candidates in
            candidates[index] = timeline
            let using = current.load(ordering: .acquiring)
            var best: (index: Int, timeline: Int64)?
            for (index, timeline) in candidates.enumerated() {
                guard let timeline else { continue }
                if let chosen = best, timeline < chosen.timeline || (timeline == chosen.timeline && index != using) {
                    continue
                }
                best = (index, timeline)
            }
            guard let best, best.index != using else { return nil }
            current.store(best.index, ordering: .releasing)
            switches.wrappingAdd(1, ordering: .releasing)
            return (using, best.index, best.timeline)
        }
        guard let switched else { return }
        let metadata: Logger.Metadata = [
            "primary": .string(hosts[switched.to].name), "timeline": .stringConvertible(switched.timeline),
        ]
        if switched.from >= 0 {
            instruments.count("hangar_primary_switches_total")
            instruments.logger.warning(
                "The PostgreSQL primary in use is now another server",
                metadata: metadata.merging(["previous": .string(hosts[switched.from].name)]) { $1 })
        } else {
            instruments.logger.info("Found the PostgreSQL primary", metadata: metadata)
        }
    }

    private struct CheckFailed: Error {}
}
