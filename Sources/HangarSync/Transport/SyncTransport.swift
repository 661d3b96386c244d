public import Foundation
public import Hangar
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a client reaches a sync server: the three requests of the protocol. ``HTTPSyncTransport`` speaks HTTP;
/// ``LocalSyncTransport`` calls a ``SyncServer`` in the same process.
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

/// The protocol over HTTP with Foundation's `URLSession` (FoundationNetworking on Linux): `GET
/// BASE/sync/C/changes?…`, `GET BASE/sync/C/snapshot`, `POST BASE/sync/C/push`, bodies binary property lists, an
/// optional bearer token.
public struct HTTPSyncTransport: SyncTransport {
    /// The server's base URL (`http://HOST:PORT`, or with a path prefix).
    public let baseURL: URL
    /// The bearer token sent as `Authorization`, when given.
    public let token: String?
    /// How long one request may take.
    public let timeout: TimeInterval
    /// How long the event stream may stay silent before it counts as lost (the server's keep-alive comments
    /// come every 15 seconds by default).
    public var eventTimeout: TimeInterval = 45
    let session: URLSession

    /// A transport to `baseURL`.
    public init(baseURL: URL, token: String? = nil, timeout: TimeInterval = 60) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration)
    }

    public func pull(_ collection: String, after checkpoint: SyncCheckpoint) async throws -> SyncBatch {
        let body = try await send("GET", collection, "changes", query: Self.query(checkpoint), body: nil)
        return try SyncWire.batch(try SyncWire.value(body))
    }

    /// The query of a checkpoint: `since`, `store`, `epoch`, `mark`, and the acknowledged sequence when past it.
    static func query(_ checkpoint: SyncCheckpoint) -> [URLQueryItem] {
        [
            URLQueryItem(name: "since", value: String(checkpoint.through)),
            URLQueryItem(name: "store", value: checkpoint.storeID),
            URLQueryItem(name: "epoch", value: checkpoint.epoch),
            URLQueryItem(name: "mark", value: checkpoint.mark),
        ]
            + (checkpoint.acknowledged > checkpoint.through
                ? [
                    URLQueryItem(name: "acknowledged", value: String(checkpoint.acknowledged)),
                    URLQueryItem(name: "acknowledgedMark", value: checkpoint.acknowledgedMark),
                ] : [])
    }

    public func snapshot(of collection: String) async throws -> SyncBatch {
        let body = try await send("GET", collection, "snapshot", query: [], body: nil)
        return try SyncWire.batch(try SyncWire.value(body))
    }

    public func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer {
        let body = try await send(
            "POST", collection, "push", query: [], body: try SyncWire.bytes(SyncWire.encode(push)))
        let answer = try SyncWire.pushAnswer(try SyncWire.value(body))
        let outcomes = answer.outcomes
        guard outcomes.count == push.mutations.count else {
            throw SyncError(
                .malformedAnswer,
                "The push answer has \(outcomes.count) results for "
                    + "\(push.mutations.count) mutations")
        }
        return answer
    }

    /// Sends one request; the answer's body on 200, else the error its status means.
    func send(_ method: String, _ collection: String, _ action: String, query: [URLQueryItem], body: [UInt8]?)
        async throws -> [UInt8]
    {
        var request = try request(method, collection, action, query: query)
        if let body {
            request.httpBody = Data(body)
            request.setValue(SyncWire.mediaType, forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.data(for: request, in: session)
        } catch {
            throw SyncError(.unreachable, "\(baseURL.absoluteString) does not answer: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncError(.malformedAnswer, "The answer is not HTTP")
        }
        let bytes = [UInt8](data)
        guard http.statusCode == 200 else { throw Self.error(status: http.statusCode, bytes) }
        return bytes
    }

    /// `request`'s answer. Not `URLSession.data(for:)`: on Linux, cancelling the task that awaits it calls the
    /// data task's `cancel()` while the task's status is locked, and `cancel()` waits for the session's queue,
    /// which may be resuming that very task: a deadlock (seen cancelling `SyncReplica.follow`). Here cancelling
    /// only asks another queue to cancel the data task.
    static func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let started = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (answer: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        answer.resume(returning: (data, response))
                    } else {
                        answer.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }
                let cancelled = started.withLock {
                    $0.task = task
                    return $0.cancelled
                }
                task.resume()
                if cancelled { DispatchQueue.global().async { task.cancel() } }
            }
        } onCancel: {
            let task = started.withLock {
                $0.cancelled = true
                return $0.task
            }
            if let task { DispatchQueue.global().async { task.cancel() } }
        }
    }

    /// The request of `action` on `collection` with `query`, accepting binary property lists, with the token.
    func request(_ method: String, _ collection: String, _ action: String, query: [URLQueryItem]) throws(SyncError)
        -> URLRequest
    {
        guard
            var components = URLComponents(
                url: baseURL.appendingPathComponent("sync").appendingPathComponent(collection)
                    .appendingPathComponent(action), resolvingAgainstBaseURL: false)
        else { throw SyncError(.invalidRequest, "The remote URL \(baseURL) cannot be used") }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw SyncError(.invalidRequest, "The remote URL cannot be used") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue(SyncWire.mediaType, forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// The error an answer of `status` (not 200) with body `bytes` means.
    static func error(status: Int, _ bytes: [UInt8]) -> SyncError {
        switch status {
        case 410:
            let cause = (try? SyncWire.value(bytes))?["cause"]?.stringValue
            return SyncError(
                cause == "history" ? .historyChanged : .resyncNeeded, reason(bytes, status: 410), status: 410)
        case 500...: return SyncError(.serverFailed, reason(bytes, status: status), status: status)
        default: return SyncError(.refused, reason(bytes, status: status), status: status)
        }
    }

    /// The reason an error answer gives (`reason` of a property list or JSON body), else its status.
    static func reason(_ bytes: [UInt8], status: Int) -> String {
        if let value = try? SyncWire.value(bytes) {
            if let reason = value["reason"]?.stringValue ?? value["error"]?["message"]?.stringValue
                ?? value["error"]?.stringValue
            {
                return "the server answered \(status): \(reason)"
            }
        }
        return "the server answered \(status)"
    }
}
