/// How a client reaches a sync server: the three requests of the protocol and its live notices.
/// ``HTTPSyncTransport`` speaks HTTP with URLSession (Apple platforms), `AsyncHTTPSyncTransport` (the
/// `HangarSyncHTTPClient` product) with async-http-client (Linux); ``LocalSyncTransport`` calls a ``SyncServer`` in
/// the same process.
public protocol SyncTransport: Sendable {
    /// The changes of `collection` after `checkpoint`; ``SyncError/Code/resyncNeeded`` when it cannot be continued.
    func pull(_ collection: String, after checkpoint: SyncCheckpoint) async throws -> SyncBatch
    /// Every live document of `collection`.
    func snapshot(of collection: String) async throws -> SyncBatch
    /// Applies mutations of `collection`; one outcome per mutation, in order.
    func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer
    /// Live notices of `collection`'s commits after `checkpoint` (each: pull now), until the stream ends or fails;
    /// a checkpoint that cannot be continued throws as ``pull(_:after:)`` does, before any notice. The default
    /// has no live channel: a notice every ``SyncTransportDefaults/noticeInterval``, so a follower polls.
    func notices(of collection: String, after checkpoint: SyncCheckpoint) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
}

/// What a ``SyncTransport`` without a live channel does.
public enum SyncTransportDefaults {
    /// How often the default ``SyncTransport/notices(of:after:)`` asks for a pull.
    public static let noticeInterval: Duration = .seconds(1)
}

extension SyncTransport {
    public func notices(of collection: String, after checkpoint: SyncCheckpoint) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
    {
        let (notices, sink) = AsyncThrowingStream.makeStream(of: SyncNotice.self)
        let ticker = Task {
            while (try? await Task.sleep(for: SyncTransportDefaults.noticeInterval)) != nil {
                sink.yield(SyncNotice(sequence: checkpoint.through))
            }
            sink.finish()
        }
        sink.onTermination = { _ in ticker.cancel() }
        return notices
    }
}
