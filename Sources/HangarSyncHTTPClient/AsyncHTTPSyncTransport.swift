public import AsyncHTTPClient
public import Foundation
public import HangarSync
import NIOCore
import NIOHTTP1

/// Hangar Sync over HTTP (``HangarSync/SyncHTTP``) with async-http-client: the transport for Linux apps and
/// `hangar db sync`. Whatever point a connection is cut at (before the answer, inside its head, inside its body,
/// inside the event stream), a call throws ``HangarSync/SyncError/Code/unreachable`` and the process goes on;
/// retrying is safe (a push's mutations are applied at most once). The errors are ``HangarSync/HTTPSyncTransport``'s.
///
/// It either owns an `HTTPClient` (``init(baseURL:token:timeout:)``: call ``shutdown()`` once done, or use
/// ``withTransport(baseURL:token:timeout:_:)``) or uses one the app passes in and shuts down itself
/// (``init(baseURL:token:timeout:client:)``, `HTTPClient.shared` say).
public struct AsyncHTTPSyncTransport: SyncTransport {
    /// The server's base URL (`http://HOST:PORT`, or with a path prefix).
    public let baseURL: URL
    /// The bearer token sent as `Authorization`, when given.
    public let token: String?
    /// How long one request may take, answer read whole; for the event stream, until its head arrives.
    public let timeout: Duration
    /// How long the event stream may stay silent before it counts as lost (the server's keep-alive comments
    /// come every 15 seconds by default).
    public var eventTimeout: Duration = .seconds(45)
    /// The largest answer read, in bytes (a larger one is ``HangarSync/SyncError/Code/malformedAnswer``).
    public var maximumAnswerSize = 1 << 30
    /// The client the requests go through.
    public let client: HTTPClient
    /// Whether ``shutdown()`` shuts ``client`` down (this transport made it).
    let ownsClient: Bool

    /// A transport to `baseURL` with an `HTTPClient` of its own: call ``shutdown()`` once done (a debug build
    /// traps when such a client is released running). A connection refused fails its request at once (the
    /// client does not retry it until the connect timeout).
    public init(baseURL: URL, token: String? = nil, timeout: Duration = .seconds(60)) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: Self.amount(min(timeout, .seconds(10))))
        // A refused connection fails the request at once, as URLSession's does: the replica's passes are what
        // retries (`follow` with its backoff, or the app's next sync), not each request for the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        self.init(
            baseURL: baseURL, token: token, timeout: timeout, client: HTTPClient(configuration: configuration),
            owned: true)
    }

    /// A transport to `baseURL` through `client`, which the caller shuts down (``shutdown()`` leaves it be).
    public init(baseURL: URL, token: String? = nil, timeout: Duration = .seconds(60), client: HTTPClient) {
        self.init(baseURL: baseURL, token: token, timeout: timeout, client: client, owned: false)
    }

    private init(baseURL: URL, token: String?, timeout: Duration, client: HTTPClient, owned: Bool) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
        self.client = client
        self.ownsClient = owned
    }

    /// Runs `body` with a transport to `baseURL` that owns its client, and shuts that client down after it,
    /// whether it returns or throws.
    public static func withTransport<Result: Sendable>(
        baseURL: URL, token: String? = nil, timeout: Duration = .seconds(60),
        _ body: (AsyncHTTPSyncTransport) async throws -> Result
    ) async throws -> Result {
        let transport = AsyncHTTPSyncTransport(baseURL: baseURL, token: token, timeout: timeout)
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(transport))
        } catch {
            result = .failure(error)
        }
        try await transport.shutdown()
        return try result.get()
    }

    /// Shuts down the client this transport made (its connections closed); nothing for a client passed in.
    /// Call it once, after the last request and event stream ended.
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
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

    /// Sends one request and reads its answer whole within ``timeout``: the body on 200, else the error its
    /// status means.
    func send(_ action: SyncHTTP.Action, _ collection: String, after checkpoint: SyncCheckpoint?, body: [UInt8]?)
        async throws -> [UInt8]
    {
        var request = try request(action, collection, after: checkpoint, accepting: SyncWire.mediaType)
        if let body {
            request.headers.add(name: "Content-Type", value: SyncWire.mediaType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let (client, limit, prepared) = (client, maximumAnswerSize, request)
        let (status, bytes) = try await answer(within: timeout) {
            let response = try await client.execute(prepared, deadline: .distantFuture)
            let body = try await response.body.collect(upTo: limit)
            return (Int(response.status.code), Array(body.readableBytesView))
        }
        guard status == 200 else { throw SyncHTTP.error(status: status, body: bytes) }
        return bytes
    }

    /// What `exchange` returns, unless it takes longer than `limit` (it is then cancelled) or fails: a
    /// ``HangarSync/SyncError`` either way.
    func answer<Value: Sendable>(within limit: Duration, _ exchange: @escaping @Sendable () async throws -> Value)
        async throws -> Value
    {
        do {
            return try await withThrowingTaskGroup(of: Value?.self) { tasks in
                tasks.addTask { try await exchange() }
                tasks.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { tasks.cancelAll() }
                guard let first = try await tasks.next(), let value = first else {
                    throw SyncError(.unreachable, "\(baseURL.absoluteString) gave no answer within \(limit)")
                }
                return value
            }
        } catch let error as SyncError {
            throw error
        } catch is NIOTooManyBytesError {
            throw SyncError(.malformedAnswer, "The answer is larger than \(maximumAnswerSize) bytes")
        } catch {
            throw SyncError(.unreachable, "\(baseURL.absoluteString) does not answer: \(error)")
        }
    }

    /// The request of `action` on `collection` (with the checkpoint's query, when given), accepting
    /// `mediaType`, with the token.
    func request(
        _ action: SyncHTTP.Action, _ collection: String, after checkpoint: SyncCheckpoint?, accepting mediaType: String
    ) throws(SyncError) -> HTTPClientRequest {
        let url = try SyncHTTP.url(action, collection: collection, at: baseURL, after: checkpoint)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: action.method)
        request.headers.add(name: "Accept", value: mediaType)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    /// `duration` as NIO's time amount.
    static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
