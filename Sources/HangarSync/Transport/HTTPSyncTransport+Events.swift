import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPSyncTransport {
    /// The event stream: `GET BASE/sync/C/events?since=…&store=…&epoch=…&mark=…` with `Accept:
    /// text/event-stream`, read as it arrives through a `URLSessionDataDelegate` (which FoundationNetworking on
    /// Linux supports, unlike `URLSession.bytes(for:)`). Returns once the server answered 200 and its first line;
    /// throws the pull's errors otherwise (410 as ``SyncError/Code/resyncNeeded`` or
    /// ``SyncError/Code/historyChanged``, 401 as ``SyncError/Code/refused``, no answer as
    /// ``SyncError/Code/unreachable``). The stream ends when the connection does (a lost connection is
    /// ``SyncError/Code/unreachable``), or after ``eventTimeout`` without a byte (the server's keep-alive comments
    /// come far more often).
    public func notices(of collection: String, after checkpoint: SyncCheckpoint) async throws
        -> AsyncThrowingStream<SyncNotice, any Error>
    {
        var request = try request(.events, collection, after: checkpoint)
        request.setValue(SyncHTTP.eventStreamMediaType, forHTTPHeaderField: "Accept")
        request.timeoutInterval = eventTimeout
        let (notices, sink) = AsyncThrowingStream.makeStream(of: SyncNotice.self)
        let reader = EventStreamReader(sink: sink, server: baseURL.absoluteString)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = eventTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        let task = session.dataTask(with: request)
        // The session holds its delegate until it is invalidated: end both when the consumer stops. Not from the
        // cancelling thread itself: FoundationNetworking waits on the session's queue there, whose delegate calls
        // may be waiting on the cancelled task (a deadlock seen on Linux).
        sink.onTermination = { _ in DispatchQueue.global().async { session.invalidateAndCancel() } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
                reader.start(task, opened: opened)
            }
        } onCancel: {
            DispatchQueue.global().async { task.cancel() }
        }
        return notices
    }
}

/// Reads one event stream's bytes as they come: the first chunk of a 200 answer opens it, and its events are
/// read by ``SyncHTTP/EventParser``; an answer of another status is collected and thrown as the status means.
final class EventStreamReader: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var opened: CheckedContinuation<Void, any Error>?
        var parser = SyncHTTP.EventParser()
        /// The body of an answer that is not 200 (its error).
        var body: [UInt8] = []
        var status = 0
    }

    let sink: AsyncThrowingStream<SyncNotice, any Error>.Continuation
    let server: String
    let state = Mutex(State())

    init(sink: AsyncThrowingStream<SyncNotice, any Error>.Continuation, server: String) {
        self.sink = sink
        self.server = server
    }

    func start(_ task: URLSessionDataTask, opened: CheckedContinuation<Void, any Error>) {
        state.withLock { $0.opened = opened }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let status = (dataTask.response as? HTTPURLResponse)?.statusCode ?? 0
        let read = state.withLock { state -> (CheckedContinuation<Void, any Error>?, Result<[SyncNotice], SyncError>) in
            state.status = status
            guard status == 200 else {
                state.body += data
                return (nil, .success([]))
            }
            let opened = state.opened
            state.opened = nil
            do throws(SyncError) {
                return (opened, .success(try state.parser.read(data)))
            } catch {
                return (opened, .failure(error))
            }
        }
        read.0?.resume()
        switch read.1 {
        case .success(let notices): for notice in notices { sink.yield(notice) }
        case .failure(let error):
            sink.finish(throwing: error)
            // Not on the session's queue, where this runs: cancel() waits for it (see `notices(of:after:)`).
            DispatchQueue.global().async { dataTask.cancel() }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (opened, status, body) = state.withLock { state in
            let opened = state.opened
            state.opened = nil
            return (opened, state.status, state.body)
        }
        let failure: SyncError?
        if let error {
            failure = SyncError(.unreachable, "\(server) does not answer: \(error.localizedDescription)")
        } else if status != 200 {
            let answered = status == 0 ? (task.response as? HTTPURLResponse)?.statusCode ?? 0 : status
            failure = SyncHTTP.error(status: answered, body: body)
        } else {
            failure = nil
        }
        if let opened {
            opened.resume(throwing: failure ?? SyncError(.malformedAnswer, "The event stream ended at once"))
            sink.finish()
        } else {
            sink.finish(throwing: failure)
        }
        session.finishTasksAndInvalidate()
    }
}
