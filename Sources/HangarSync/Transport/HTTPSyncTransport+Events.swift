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
        var request = try request("GET", collection, "events", query: Self.query(checkpoint))
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
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

/// Reads one event stream's bytes as they come: the first chunk of a 200 answer opens it, each `change` event
/// (its `id` the sequence) is a ``SyncNotice``, comments (keep-alives) are skipped; an answer of another status is
/// collected and thrown as the status means.
final class EventStreamReader: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var opened: CheckedContinuation<Void, any Error>?
        var buffer: [UInt8] = []
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
        let (opened, notices) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, [SyncNotice]) in
            state.status = status
            state.buffer += data
            guard status == 200 else { return (nil, []) }
            let opened = state.opened
            state.opened = nil
            return (opened, Self.events(&state.buffer))
        }
        opened?.resume()
        for notice in notices { sink.yield(notice) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (opened, status, body) = state.withLock { state in
            let opened = state.opened
            state.opened = nil
            return (opened, state.status, state.buffer)
        }
        let failure: SyncError?
        if let error {
            failure = SyncError(.unreachable, "\(server) does not answer: \(error.localizedDescription)")
        } else if status != 200 {
            let answered = status == 0 ? (task.response as? HTTPURLResponse)?.statusCode ?? 0 : status
            failure = HTTPSyncTransport.error(status: answered, body)
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

    /// Takes the complete events (each ends with a blank line) off the front of `buffer`; the notices among them.
    static func events(_ buffer: inout [UInt8]) -> [SyncNotice] {
        var notices: [SyncNotice] = []
        var start = 0
        var index = 0
        while index + 1 < buffer.count {
            let isEnd =
                buffer[index] == UInt8(ascii: "\n")
                && (buffer[index + 1] == UInt8(ascii: "\n")
                    || (buffer[index + 1] == UInt8(ascii: "\r") && index + 2 < buffer.count
                        && buffer[index + 2] == UInt8(ascii: "\n")))
            guard isEnd else {
                index += 1
                continue
            }
            if let notice = notice(in: buffer[start..<index]) { notices.append(notice) }
            index += buffer[index + 1] == UInt8(ascii: "\n") ? 2 : 3
            start = index
        }
        buffer.removeFirst(start)
        return notices
    }

    /// The notice one event's lines describe: `event: change` (or no event name) with a numeric `id`.
    static func notice(in event: ArraySlice<UInt8>) -> SyncNotice? {
        var id: Int?
        var name = "message"
        for line in String(decoding: event, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard !line.hasPrefix(":"), let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            switch line[..<colon] {
            case "id": id = Int(value)
            case "event": name = String(value)
            default: break
            }
        }
        guard let id, name == "change" || name == "message" else { return nil }
        return SyncNotice(sequence: id)
    }
}
