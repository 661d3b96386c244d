import Foundation
import Hangar
import HangarSync
import Logging
import ServiceLifecycle

/// Forgets Hangar Sync's remembered answers once the store's change retention has passed them
/// (``HangarSync/SyncServer/forgetAnswers(limit:)``): at start, then every `interval`, until shutdown.
struct SyncAnswersService<Store: DocumentStore>: Service {
    let server: SyncServer<Store>
    var interval: Duration = .seconds(3600)
    let logger: Logger

    func run() async throws {
        repeat {
            do {
                var forgotten = 0
                // Each call forgets at most 10,000 (a few write transactions); go on while there are more.
                while case let count = try await server.forgetAnswers(), count > 0 {
                    forgotten += count
                    if count < 10_000 { break }
                }
                if forgotten > 0 { logger.info("pilots-server: forgot \(forgotten) expired sync answers") }
            } catch {
                logger.warning("pilots-server: forgetting expired sync answers failed: \(error)")
            }
            // Ends the wait at shutdown (and on cancellation).
            let interval = interval
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        } while !Task.isCancelled && !Task.isShuttingDownGracefully
    }
}
