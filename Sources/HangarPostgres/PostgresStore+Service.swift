public import ServiceLifecycle

/// A `PostgresStore` is a service of the application's `ServiceGroup`: add it beside the server, and the group
/// closes it (its pool's connections) when it shuts down, after the services that use it have stopped.
///
/// ```swift
/// let store = try await PostgresStore(url: url, store: configuration)
/// let group = ServiceGroup(services: [store, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension PostgresStore: Service {
    /// Keeps the store open until the group shuts down gracefully or the task is cancelled, then closes it.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
