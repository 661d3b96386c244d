import AsyncHTTPClient
import HangarSync
import NIOCore
import Synchronization

extension AsyncHTTPSyncTransport {
    /// The event stream: `GET BASE/sync/C/events?…` with `Accept: text/event-stream`, read as it arrives and
    /// parsed by ``HangarSync/SyncHTTP/EventParser``. Returns once the server answered 200 (within ``timeout``);
    /// throws the pull's errors otherwise (410 as ``HangarSync/SyncError/Code/resyncNeeded`` or
    /// ``HangarSync/SyncError/Code/historyChanged``, 401 as ``HangarSync/SyncError/Code/refused``, no answer as
    /// ``HangarSync/SyncError/Code/unreachable``). The stream ends when the server ends it; a lost connection, or
    /// ``eventTimeout`` without a byte, ends it with ``HangarSync/SyncError/Code/unreachable``. Ending the
    /// stream's iteration closes the connection.
    public func notices(of collection: String, after checkpoint: SyncCheckpoint) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
    {
        let request = try request(.events, collection, after: checkpoint, accepting: SyncHTTP.eventStreamMediaType)
        let client = client
        let response = try await answer(within: timeout) {
            try await client.execute(request, deadline: .distantFuture)
        }
        guard response.status == .ok else {
            let limit = maximumAnswerSize
            let body = try await answer(within: timeout) { try await response.body.collect(upTo: limit) }
            throw SyncHTTP.error(status: Int(response.status.code), body: Array(body.readableBytesView))
        }
        let (notices, sink) = AsyncThrowingStream.makeStream(of: SyncNotice.self)
        let watch = SilenceWatch()
        let (server, silence) = (baseURL.absoluteString, eventTimeout)
        let reader = Task {
            var parser = SyncHTTP.EventParser()
            do {
                for try await chunk in response.body {
                    watch.heard()
                    for notice in try parser.read(chunk.readableBytesView) { sink.yield(notice) }
                }
                sink.finish()
            } catch let error as SyncError {
                sink.finish(throwing: error)
            } catch {
                sink.finish(
                    throwing: watch.isSilent
                        ? SyncError(.unreachable, "\(server) sent nothing for \(silence)")
                        : SyncError(.unreachable, "\(server) does not answer: \(error)"))
            }
        }
        let watchdog = Task {
            // Checked often enough that a silent stream ends at most a second or so past its limit.
            let interval = min(silence / 4, .seconds(1))
            while (try? await Task.sleep(for: interval)) != nil {
                if watch.isSilent(for: silence) {
                    reader.cancel()
                    return
                }
            }
        }
        sink.onTermination = { _ in
            reader.cancel()
            watchdog.cancel()
        }
        return notices
    }
}

/// When an event stream last sent a byte, and whether it stayed silent too long.
final class SilenceWatch: Sendable {
    private let state = Mutex<(last: ContinuousClock.Instant, silent: Bool)>((.now, false))

    /// A byte came.
    func heard() { state.withLock { $0.last = .now } }

    /// Whether nothing came for `limit` (and from then on, ``isSilent``).
    func isSilent(for limit: Duration) -> Bool {
        state.withLock { state in
            if state.last.duration(to: .now) > limit { state.silent = true }
            return state.silent
        }
    }

    /// Whether the stream was found silent.
    var isSilent: Bool { state.withLock { $0.silent } }
}
