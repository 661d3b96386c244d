import Hangar

extension SyncServer {
    /// Live notices of `collection` after `checkpoint`: one ``SyncNotice`` per committed transaction that changed
    /// a document of the collection `user` may see (every document when `nil`), starting with those already
    /// committed after the checkpoint, until the consumer stops iterating or the store's feed fails (changes
    /// pruned under a slow follower, say). Driven by ``Hangar/DocumentStore/follow(after:in:)``.
    ///
    /// The checkpoint is checked first, with the pull's rules: ``SyncError/Code/historyChanged`` or
    /// ``SyncError/Code/resyncNeeded`` (410) before any notice, so a client resyncs instead of following a
    /// history it cannot continue. A notice carries no data: the client pulls.
    public func notices(of collection: String, after checkpoint: SyncCheckpoint, user: String? = nil) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
    {
        try Self.checkSyncable(collection)
        let identity = try await identity()
        _ = try await store.read { try await Self.verify(checkpoint, of: identity, $0) }
        let feed = store.follow(after: checkpoint.through, in: collection)
        let store = self.store
        let (notices, sink) = AsyncThrowingStream.makeStream(of: SyncNotice.self)
        let follower = Task {
            do {
                var notified: Int?
                for try await change in feed where change.transaction != notified {
                    if user != nil {
                        let visible = try await store.read {
                            try await SyncOwnership.isVisible(change.key, in: collection, to: user, $0)
                        }
                        guard visible else { continue }
                    }
                    notified = change.transaction
                    sink.yield(SyncNotice(sequence: change.sequence))
                }
                sink.finish()
            } catch is CancellationError {
                sink.finish()
            } catch {
                sink.finish(throwing: error)
            }
        }
        sink.onTermination = { _ in follower.cancel() }
        return notices
    }
}
