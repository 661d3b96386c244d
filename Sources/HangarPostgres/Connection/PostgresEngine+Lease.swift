import Hangar
import PostgresNIO
import Synchronization

extension PostgresEngine {
    /// A pooled connection lent to one transaction; ``release()`` gives it back.
    struct Lease: Sendable {
        let connection: PostgresConnection
        let release: @Sendable () -> Void
    }

    /// Borrows a connection, waiting at most `timeout`. postgres-nio's pool waits without end for a server it
    /// cannot reach (it retries connecting in the background): here the wait ends with
    /// ``HangarError/Code/connectionLost``. The connection is held by a task of the engine's until
    /// ``Lease/release``, so the transaction runs in the caller's own task and isolation.
    /// Without `target`, the primary in use's (``PostgresPrimary/lease(timeout:)``: after a failover, the promoted
    /// server's).
    func lease(timeout: Duration, on target: PostgresClient? = nil) async throws(HangarError) -> Lease {
        guard let target else { return try await primary.lease(timeout: timeout) }
        return try await Self.lease(from: target, timeout: timeout)
    }

    /// ``lease(timeout:on:)`` from any pool (a replica's watch borrows this way too).
    static func lease(from client: PostgresClient, timeout: Duration) async throws(HangarError) -> Lease {
        let (released, releasing) = AsyncStream<Void>.makeStream()
        let handoff = ContinuationHandoff<PostgresEngine.Lease>()
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                handoff.start(continuation)
                let holder = Task {
                    do {
                        try await client.withConnection { connection in
                            let lease = Lease(connection: connection, release: { releasing.finish() })
                            // Too late (timed out): give it back at once.
                            guard handoff.finish(.success(lease)) else { return }
                            for await _ in released {}
                        }
                    } catch {
                        _ = handoff.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    if handoff.finish(.failure(LeaseTimeout())) { holder.cancel() }
                }
                handoff.onFinish { timer.cancel() }
            }
        } catch is LeaseTimeout {
            throw HangarError(
                .connectionLost,
                "No connection to the PostgreSQL server within \(timeout) (the server is unreachable, or every "
                    + "pooled connection stayed busy); nothing ran")
        } catch {
            throw HangarError.postgres(error, sql: nil, phase: .connecting)
        }
    }
}

/// The lease waited too long.
private struct LeaseTimeout: Error {}
