public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The protocol over HTTP (``SyncHTTP``) with Foundation's `URLSession`: the transport for Apple platforms, bodies
/// binary property lists, an optional bearer token.
///
/// On Linux, FoundationNetworking ends the process when a connection closes inside an answer's head
/// (swift-corelibs-foundation#5285): Linux apps use `AsyncHTTPSyncTransport` (the `HangarSyncHTTPClient`
/// product) instead, which survives any cut.
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
        try SyncHTTP.batch(try await send(.changes, collection, after: checkpoint, body: nil))
    }

    public func snapshot(of collection: String) async throws -> SyncBatch {
        try SyncHTTP.batch(try await send(.snapshot, collection, after: nil, body: nil))
    }

    public func push(_ push: SyncPush, to collection: String) async throws -> SyncPushAnswer {
        let body = try await send(.push, collection, after: nil, body: try SyncWire.bytes(SyncWire.encode(push)))
        return try SyncHTTP.pushAnswer(body, to: push)
    }

    /// Sends one request; the answer's body on 200, else the error its status means.
    func send(_ action: SyncHTTP.Action, _ collection: String, after checkpoint: SyncCheckpoint?, body: [UInt8]?)
        async throws -> [UInt8]
    {
        var request = try request(action, collection, after: checkpoint)
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
        guard http.statusCode == 200 else { throw SyncHTTP.error(status: http.statusCode, body: bytes) }
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

    /// The request of `action` on `collection` (with the checkpoint's query, when given), accepting binary
    /// property lists, with the token.
    func request(_ action: SyncHTTP.Action, _ collection: String, after checkpoint: SyncCheckpoint?)
        throws(SyncError) -> URLRequest
    {
        let url = try SyncHTTP.url(action, collection: collection, at: baseURL, after: checkpoint)
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = action.method
        request.setValue(SyncWire.mediaType, forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }
}
