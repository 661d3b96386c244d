public import Foundation
public import PropertyList

/// Hangar Sync over HTTP, written once for both ends: the clients (``HTTPSyncTransport``, and
/// `AsyncHTTPSyncTransport` in `HangarSyncHTTPClient`) and the server's routes (`HangarSyncRoutes` in
/// `HangarHummingbird`) use it, so a path, a query name or a status is decided here only.
///
/// - `GET BASE/sync/C/changes?since=N&store=ID&epoch=E&mark=M[&acknowledged=A&acknowledgedMark=AM]`: a batch.
/// - `GET BASE/sync/C/snapshot`: every live document and the checkpoint to continue from.
/// - `POST BASE/sync/C/push`: mutations, one result each.
/// - `GET BASE/sync/C/events?…` (the query of `changes`), `Accept: text/event-stream`: notices as server-sent events.
///
/// Bodies are binary property lists (``SyncWire/mediaType``). An error answers `{reason, cause?}` in one, with the
/// status its ``SyncError/Code`` maps to (``status(of:)``): 410 with cause `pruned` or `history` when a checkpoint
/// cannot be continued, 400, 404, 413, else 500.
public enum SyncHTTP {
    /// The requests of the protocol, each at `BASE/sync/COLLECTION/ACTION`.
    public enum Action: String, Sendable, CaseIterable {
        /// The changes after a checkpoint.
        case changes
        /// Every live document.
        case snapshot
        /// Mutations to apply.
        case push
        /// The live notices after a checkpoint (server-sent events).
        case events

        /// The request's method: `POST` for a push, else `GET`.
        public var method: String { self == .push ? "POST" : "GET" }
    }

    /// The media type of the event stream.
    public static let eventStreamMediaType = "text/event-stream"

    /// The path of `action` on `collection` below the base, without a leading slash: `sync/COLLECTION/ACTION`.
    /// A server's router takes it with a parameter in place of the collection (`sync/:collection/changes`).
    public static func path(_ action: Action, collection: String) -> String {
        "sync/\(collection)/\(action.rawValue)"
    }

    /// The URL of `action` on `collection` at `baseURL` (the collection a path component of its own,
    /// percent-encoded), with the query of `checkpoint` when given.
    public static func url(_ action: Action, collection: String, at baseURL: URL, after checkpoint: SyncCheckpoint?)
        throws(SyncError) -> URL
    {
        guard
            var components = URLComponents(
                url: baseURL.appendingPathComponent("sync").appendingPathComponent(collection)
                    .appendingPathComponent(action.rawValue), resolvingAgainstBaseURL: false)
        else { throw SyncError(.invalidRequest, "The remote URL \(baseURL) cannot be used") }
        if let checkpoint { components.queryItems = queryItems(checkpoint) }
        guard let url = components.url else { throw SyncError(.invalidRequest, "The remote URL cannot be used") }
        return url
    }

    // MARK: Answers

    /// The batch an answer's body holds (a pull's or a snapshot's); ``SyncError/Code/malformedAnswer`` otherwise.
    public static func batch(_ body: [UInt8]) throws(SyncError) -> SyncBatch {
        try SyncWire.batch(try SyncWire.value(body))
    }

    /// The answer to `push` an answer's body holds; ``SyncError/Code/malformedAnswer`` otherwise, or when it does
    /// not hold one result per mutation.
    public static func pushAnswer(_ body: [UInt8], to push: SyncPush) throws(SyncError) -> SyncPushAnswer {
        let answer = try SyncWire.pushAnswer(try SyncWire.value(body))
        guard answer.outcomes.count == push.mutations.count else {
            throw SyncError(
                .malformedAnswer,
                "The push answer has \(answer.outcomes.count) results for \(push.mutations.count) mutations")
        }
        return answer
    }

    // MARK: The checkpoint's query

    /// The names of the checkpoint's query items.
    enum Query {
        static let since = "since"
        static let store = "store"
        static let epoch = "epoch"
        static let mark = "mark"
        static let acknowledged = "acknowledged"
        static let acknowledgedMark = "acknowledgedMark"
    }

    /// The query of a checkpoint: `since`, `store`, `epoch`, `mark`, and the acknowledged sequence and its mark
    /// when past `since`.
    public static func queryItems(_ checkpoint: SyncCheckpoint) -> [URLQueryItem] {
        var items = [
            URLQueryItem(name: Query.since, value: String(checkpoint.through)),
            URLQueryItem(name: Query.store, value: checkpoint.storeID),
            URLQueryItem(name: Query.epoch, value: checkpoint.epoch),
            URLQueryItem(name: Query.mark, value: checkpoint.mark),
        ]
        if checkpoint.acknowledged > checkpoint.through {
            items.append(URLQueryItem(name: Query.acknowledged, value: String(checkpoint.acknowledged)))
            items.append(URLQueryItem(name: Query.acknowledgedMark, value: checkpoint.acknowledgedMark))
        }
        return items
    }

    /// The checkpoint of a `changes` or `events` query, `value` giving the (percent-decoded) value of a name;
    /// ``SyncError/Code/invalidRequest`` without `since` (an integer, not negative), `store` and `epoch`. A
    /// missing `mark` is empty; a missing or unreadable `acknowledged` is 0.
    public static func checkpoint(query value: (String) -> String?) throws(SyncError) -> SyncCheckpoint {
        guard let since = value(Query.since).flatMap({ Int($0) }), since >= 0, let storeID = value(Query.store),
            let epoch = value(Query.epoch)
        else {
            throw SyncError(.invalidRequest, "changes needs since (an integer), store and epoch")
        }
        let acknowledged = value(Query.acknowledged).flatMap { Int($0) } ?? 0
        return SyncCheckpoint(
            storeID: storeID, epoch: epoch, through: since, mark: value(Query.mark) ?? "", acknowledged: acknowledged,
            acknowledgedMark: value(Query.acknowledgedMark) ?? "")
    }

    // MARK: Errors

    /// The `cause` of a 410 answer: `pruned` (``SyncError/Code/resyncNeeded``) or `history`
    /// (``SyncError/Code/historyChanged``).
    public enum GoneCause: String, Sendable {
        /// The changes after the checkpoint were pruned.
        case pruned
        /// The server's history is not the one the checkpoint continued.
        case history
    }

    /// The status a server answers for `code`: 410 for a checkpoint that cannot be continued, 400 for an invalid
    /// request, 404 for a collection that does not sync, 413 for a body too large, else 500.
    public static func status(of code: SyncError.Code) -> Int {
        switch code {
        case .resyncNeeded, .historyChanged: 410
        case .invalidRequest: 400
        case .notFound: 404
        case .tooLarge: 413
        case .unreachable, .malformedAnswer, .refused, .serverFailed: 500
        }
    }

    /// The `cause` a 410 answer for `code` carries.
    public static func cause(of code: SyncError.Code) -> GoneCause? {
        switch code {
        case .resyncNeeded: .pruned
        case .historyChanged: .history
        default: nil
        }
    }

    /// The body of an error answer: `{reason, cause?}` (encode it with ``SyncWire/bytes(_:)``).
    public static func errorBody(_ error: SyncError) -> PropertyList {
        var body: PropertyList.Dictionary = ["reason": .string(error.message)]
        if let cause = cause(of: error.code) { body["cause"] = .string(cause.rawValue) }
        return .dictionary(body)
    }

    /// The error an answer of `status` (not 200) with `body` means to a client: 410 is
    /// ``SyncError/Code/historyChanged`` with cause `history`, else ``SyncError/Code/resyncNeeded``; 5xx is
    /// ``SyncError/Code/serverFailed``; any other is ``SyncError/Code/refused``. The message names the status
    /// and the body's reason (`reason` of a property list or JSON body, or an `error` of one).
    public static func error(status: Int, body: [UInt8]) -> SyncError {
        let value = try? SyncWire.value(body)
        var message = "the server answered \(status)"
        if let reason = value?["reason"]?.stringValue ?? value?["error"]?["message"]?.stringValue
            ?? value?["error"]?.stringValue
        {
            message += ": \(reason)"
        }
        switch status {
        case 410:
            let cause = value?["cause"]?.stringValue.flatMap(GoneCause.init(rawValue:))
            return SyncError(cause == .history ? .historyChanged : .resyncNeeded, message)
        case 500...: return SyncError(.serverFailed, message)
        default: return SyncError(.refused, message)
        }
    }
}
