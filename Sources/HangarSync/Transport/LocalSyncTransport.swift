public import Hangar

/// A transport to a ``SyncServer`` in the same process: for apps that embed both ends, and tests.
public struct LocalSyncTransport<Store: DocumentStore>: SyncTransport {
    /// The server called.
    public let server: SyncServer<Store>

    /// A transport to `server`.
    public init(server: SyncServer<Store>) { self.server = server }

    public func pull(_ collection: String, after checkpoint: SyncCheckpoint) async throws -> SyncBatch {
        try await server.pull(collection, after: checkpoint)
    }

    public func snapshot(of collection: String) async throws -> SyncBatch {
        try await server.snapshot(of: collection)
    }

    public func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer {
        try await server.push(push, to: collection)
    }

    public func notices(of collection: String, after checkpoint: SyncCheckpoint) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
    {
        try await server.notices(of: collection, after: checkpoint)
    }
}
