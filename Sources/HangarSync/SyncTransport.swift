public import Foundation
public import Hangar

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
        let query =
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
        let body = try await send("GET", collection, "changes", query: query, body: nil)
        return try SyncWire.batch(try SyncWire.value(body))
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
        if let body {
            request.httpBody = Data(body)
            request.setValue(SyncWire.mediaType, forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SyncError(.unreachable, "\(baseURL.absoluteString) does not answer: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncError(.malformedAnswer, "The answer is not HTTP")
        }
        let bytes = [UInt8](data)
        switch http.statusCode {
        case 200: return bytes
        case 410:
            let cause = (try? SyncWire.value(bytes))?["cause"]?.stringValue
            throw SyncError(
                cause == "history" ? .historyChanged : .resyncNeeded, Self.reason(bytes, status: 410), status: 410)
        case 500...:
            throw SyncError(.serverFailed, Self.reason(bytes, status: http.statusCode), status: http.statusCode)
        default: throw SyncError(.refused, Self.reason(bytes, status: http.statusCode), status: http.statusCode)
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
