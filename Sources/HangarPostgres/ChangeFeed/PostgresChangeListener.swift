import Hangar
import Logging
import PostgresNIO
import Synchronization

/// Wakes a store's followers when any instance numbers changes in its feed: `LISTEN` on the store's channel
/// (``PostgresStoreSQL/ChangeStatements/channel``, notified by `number_changes` as it commits), on a connection of
/// its own (a one-connection pool, so the store's pool keeps every connection for transactions).
///
/// A bell, never the source of truth: a notification only makes the followers read the feed, and they still
/// read every ``Hangar/StoreConfiguration/followPollInterval`` without one. When the listening connection is lost,
/// the followers are woken (they read once), and the channel is listened to again on a new connection, after
/// which they are woken once more: a change numbered while nobody listened is read then, or at the next poll.
///
/// It listens on the primary in use (``PostgresPrimary``: a notification is never sent from a standby), and again on
/// the promoted one once a failover switched to it; or on ``PostgresStoreConfiguration/listenClient`` when one is set
/// (the primary's direct address behind PgBouncer, which cannot carry `LISTEN` in transaction pooling).
final class PostgresChangeListener: Sendable {
    private let primary: PostgresPrimary
    private let fixed: PostgresClient.Configuration?
    private let channel: String
    private let signal: ChangeSignal
    private let logger: Logger
    private let instruments: StoreInstruments
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// A listener on `channel` that rings `signal`, connecting to `primary`'s server in use, or as `fixed` says
    /// when given (its pool size is set to 1); nothing happens until ``start()``.
    init(
        primary: PostgresPrimary, fixed: PostgresClient.Configuration?, channel: String, signal: ChangeSignal,
        logger: Logger, instruments: StoreInstruments
    ) {
        self.primary = primary
        self.fixed = fixed
        self.channel = channel
        self.signal = signal
        self.logger = logger
        self.instruments = instruments
    }

    /// Starts listening, unless it is listening already or was stopped.
    func start() {
        task.withLock { task in
            guard task == nil, !stopped.load(ordering: .acquiring) else { return }
            task = Task { [self] in await run() }
        }
    }

    /// Stops listening and closes its connection; ``start()`` does nothing afterwards.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }

    /// Stops listening without waiting (a store released without ``PostgresStore/close()``).
    func cancel() {
        stopped.store(true, ordering: .releasing)
        task.withLock { $0?.cancel() }
    }

    private func run() async {
        while !Task.isCancelled {
            let generation = primary.generation
            if let configuration = fixed ?? primary.host?.configuration {
                await listen(configuration, until: fixed == nil && primary.isSeveral ? generation : nil)
            }
            if Task.isCancelled { break }
            // Lost (or ended, or the primary changed): the followers read once now, then poll until it listens
            // again. (The pool paces the reconnection attempts of a server that is down.)
            signal.signal()
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Listens on a connection of its own to `configuration`'s server until the connection is lost, or, given
    /// `generation`, until the primary in use is another than at that generation (the connection is then closed).
    /// The connection is borrowed a second at a time: postgres-nio's pool waits without end for a server that is
    /// gone, and does not give up when cancelled.
    private func listen(_ configuration: PostgresClient.Configuration, until generation: Int?) async {
        var configuration = configuration
        configuration.options.maximumConnections = 1
        configuration.options.minimumConnections = 0
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let listening = ListeningConnection()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { [self] in
                var lease: PostgresEngine.Lease?
                while lease == nil, !Task.isCancelled, !hasSwitched(since: generation) {
                    lease = try? await PostgresEngine.lease(from: client, timeout: .seconds(1))
                }
                guard let lease else { return }
                defer { lease.release() }
                listening.set(lease.connection)
                do {
                    try await lease.connection.listen(on: channel) { notifications in
                        // Listening (again): what was numbered while nobody listened is read now.
                        signal.signal()
                        for try await _ in notifications { signal.signal() }
                    }
                } catch {
                    guard !Task.isCancelled else { return }
                    instruments.logger.debug(
                        "The change feed's listening connection was lost; listening again",
                        metadata: ["error": "\(String(reflecting: type(of: error)))"])
                }
            }
            if generation != nil {
                group.addTask { [self] in
                    while !Task.isCancelled, !hasSwitched(since: generation) {
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            // The listening ended or the primary changed (client.run() ends only when cancelled).
            _ = await group.next()
            await listening.close()
            group.cancelAll()
        }
    }

    /// Whether the primary in use changed since `generation` (never, without one).
    private func hasSwitched(since generation: Int?) -> Bool {
        generation.map { $0 != primary.generation } ?? false
    }
}

/// The connection a listener listens on, once it has one: closed to end the listening.
private final class ListeningConnection: Sendable {
    private let connection = Mutex<PostgresConnection?>(nil)

    func set(_ value: PostgresConnection) { connection.withLock { $0 = value } }

    func close() async {
        guard let open = connection.withLock({ $0 }) else { return }
        try? await open.close()
    }
}
