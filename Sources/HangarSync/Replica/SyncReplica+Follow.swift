import Hangar
import Synchronization

extension SyncReplica {
    /// Keeps `collection` in step with the server until the calling task is cancelled (then it returns): a sync
    /// pass (``sync(_:)``) at once, then one whenever the server's event stream
    /// (``SyncTransport/notices(of:after:)``) says a transaction committed there, and whenever the app commits a
    /// change of the collection in the local store (its ``Hangar/DocumentStore/follow(after:in:)``), so local
    /// saves are pushed promptly. Wake-ups that come while a pass runs are folded into one more pass.
    ///
    /// Notices carry no data: every change is applied by a pull, under the pull's checkpoint rules, so a notice
    /// lost, repeated or late never skips or repeats a change. A cut stream, a restarted server or a failed pass
    /// is retried after a delay that doubles from ``followRetryDelay`` up to ``followLongestRetryDelay`` and
    /// starts again once the stream is open; each reconnection is followed by a pass, which catches up on
    /// whatever committed while it was away (or resyncs from a snapshot, on a 410).
    ///
    /// Throws when retrying cannot help: the server refused (``SyncError/Code/refused``: a bad token, say), the
    /// request is invalid, or it answers what this client does not understand. `onPass` is called after each
    /// pass with its report.
    public func follow(_ collection: String, onPass: @Sendable (SyncReport) async -> Void = { _ in }) async throws {
        guard SyncServer<Store>.isSyncable(collection) else {
            throw SyncError(.invalidRequest, "\"\(collection)\" is not a collection that syncs")
        }
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let streamFailure = FollowFailure()
        let localStart = try await store.read { try await $0.lastChangeSequence() }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                // The app's local commits: a pass pushes them.
                do {
                    for try await _ in store.follow(after: localStart, in: collection) { wake.yield() }
                } catch is CancellationError {}
            }
            tasks.addTask {
                if let error = await followNotices(collection, wake: wake) {
                    streamFailure.error.withLock { $0 = error }
                    wake.yield()
                }
            }
            wake.yield()
            var attempt = 0
            for await _ in wakes {
                if let error = streamFailure.error.withLock({ $0 }) {
                    tasks.cancelAll()
                    throw error
                }
                do {
                    let report = try await sync(collection)
                    attempt = 0
                    await onPass(report)
                } catch {
                    if Task.isCancelled { break }
                    guard Self.isWorthRetrying(error) else {
                        tasks.cancelAll()
                        throw error
                    }
                    attempt += 1
                    guard (try? await Task.sleep(for: retryDelay(attempt))) != nil else { break }
                    wake.yield()
                }
            }
            tasks.cancelAll()
        }
    }

    /// Follows the server's notices of `collection` until cancelled, waking a pass on each and on each
    /// (re)connection; reconnects with backoff; returns an error retrying cannot help (`nil` when cancelled).
    func followNotices(_ collection: String, wake: AsyncStream<Void>.Continuation) async -> SyncError? {
        var attempt = 0
        while !Task.isCancelled {
            do {
                if let checkpoint = try await store.read({ try await ReplicaRecords.checkpoint(collection, $0) }) {
                    let notices = try await transport.notices(of: collection, after: checkpoint)
                    attempt = 0
                    wake.yield()
                    for try await _ in notices { wake.yield() }
                }
            } catch let error as SyncError where error.code == .resyncNeeded || error.code == .historyChanged {
                wake.yield()  // The pass resyncs; the stream follows the new checkpoint.
            } catch {
                if let error = error as? SyncError, !Self.isWorthRetrying(error) { return error }
            }
            attempt += 1
            guard (try? await Task.sleep(for: retryDelay(attempt))) != nil else { return nil }
        }
        return nil
    }

    /// The delay before retry `attempt` (1, 2, …): ``followRetryDelay`` doubled each time, at most
    /// ``followLongestRetryDelay``.
    func retryDelay(_ attempt: Int) -> Duration {
        var delay = followRetryDelay
        for _ in 1..<max(1, min(attempt, 30)) where delay < followLongestRetryDelay { delay *= 2 }
        return min(delay, followLongestRetryDelay)
    }

    /// Whether a failure may pass by itself (the server unreachable or failing, a local write conflict): not
    /// when the server refused, the request is invalid or the answer is not understood.
    static func isWorthRetrying(_ error: any Error) -> Bool {
        guard let error = error as? SyncError else { return !(error is CancellationError) }
        switch error.code {
        case .refused, .invalidRequest, .notFound, .tooLarge, .malformedAnswer: return false
        case .unreachable, .serverFailed, .resyncNeeded, .historyChanged: return true
        }
    }
}

/// The event stream's failure that retrying cannot help, handed from its task to the passes.
final class FollowFailure: Sendable {
    let error = Mutex<SyncError?>(nil)
}
