import Foundation
public import Hangar
public import HangarSync
public import Logging
public import ServiceLifecycle

/// Forgets Hangar Sync's remembered answers (applied mutations, idempotent PUTs) once the store's change
/// retention has passed them (``HangarSync/SyncServer/forgetAnswers(limit:)``): at start, then every `interval`,
/// until shutdown. Run it in the application's service group.
public struct SyncAnswersService<Store: DocumentStore>: Service {
    /// The server whose answers are forgotten.
    public let server: SyncServer<Store>
    /// How long between two rounds.
    public var interval: Duration
    /// Where it logs what it forgot.
    public let logger: Logger

    /// A service forgetting `server`'s expired answers every `interval` (an hour by default).
    public init(server: SyncServer<Store>, interval: Duration = .seconds(3600), logger: Logger) {
        self.server = server
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        repeat {
            do {
                var forgotten = 0
                // Each call forgets at most 10,000 (a few write transactions); go on while there are more.
                while case let count = try await server.forgetAnswers(), count > 0 {
                    forgotten += count
                    if count < 10_000 { break }
                }
                if forgotten > 0 { logger.info("hangar: forgot \(forgotten) expired sync answers") }
            } catch {
                logger.warning("hangar: forgetting expired sync answers failed: \(error)")
            }
            // Ends the wait at shutdown (and on cancellation).
            let interval = interval
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        } while !Task.isCancelled && !Task.isShuttingDownGracefully
    }
}

/// Holds a store open while the application runs, and closes it when the service group stops. List it before
/// the HTTP server, so the group stops it after the server: the store is closed once the requests in flight have
/// finished and the change streams have ended (graceful shutdown), or when the group is cancelled.
public struct StoreService<Store: DocumentStore>: Service {
    /// The store.
    public let store: Store

    /// A service holding `store` open.
    public init(store: Store) { self.store = store }

    public func run() async throws {
        // Throws only when cancelled: the group is stopping without a graceful shutdown. Closed either way.
        try? await gracefulShutdown()
        await store.close()
    }
}
