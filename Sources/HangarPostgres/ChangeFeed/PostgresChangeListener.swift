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
final class PostgresChangeListener: Sendable {
    private let clientConfiguration: PostgresClient.Configuration
    private let channel: String
    private let signal: ChangeSignal
    private let logger: Logger
    private let instruments: StoreInstruments
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// A listener on `channel` that rings `signal`, connecting as `clientConfiguration` says (its pool size is
    /// set to 1); nothing happens until ``start()``.
    init(
        clientConfiguration: PostgresClient.Configuration, channel: String, signal: ChangeSignal, logger: Logger,
        instruments: StoreInstruments
    ) {
        var configuration = clientConfiguration
        configuration.options.maximumConnections = 1
        configuration.options.minimumConnections = 0
        self.clientConfiguration = configuration
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
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        await withDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            // Listening (again): what was numbered while nobody listened is read now.
                            signal.signal()
                            for try await _ in notifications { signal.signal() }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    instruments.logger.debug(
                        "The change feed's listening connection was lost; listening again",
                        metadata: ["error": "\(String(reflecting: type(of: error)))"])
                }
                if Task.isCancelled { break }
                // Lost (or ended): the followers read once now, then poll until it listens again.
                // (The pool paces the reconnection attempts of a server that is down.)
                signal.signal()
                try? await Task.sleep(for: .milliseconds(50))
            }
            group.cancelAll()
        }
    }
}
