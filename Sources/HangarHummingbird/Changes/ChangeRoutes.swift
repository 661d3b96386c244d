import Hangar
import HangarSync
import Hummingbird
import Logging
import PropertyList

/// How `GET /changes` answers: JSON lines of what is committed now, or a live stream of server-sent events.
enum ChangeStreamMode {
    /// `application/x-ndjson`: one change per line, then the response ends.
    case lines
    /// `text/event-stream`: one event per change as it commits, until the client leaves or the server stops.
    case events

    static let linesType = "application/x-ndjson"
    static let eventsType = "text/event-stream"

    /// The mode `Accept` asks for (JSON lines without one); 406 for anything else.
    init(accept header: String?) throws(HangarHTTPError) {
        guard let header else {
            self = .lines
            return
        }
        let mode = MediaRange.best(in: header) { range -> ChangeStreamMode? in
            switch range {
            case Self.eventsType, "text/*": .events
            case Self.linesType, "application/*", "*/*": .lines
            default: nil
            }
        }
        guard let mode else {
            throw HangarHTTPError(.notAcceptable, "/changes is served as \(Self.linesType) or \(Self.eventsType)")
        }
        self = mode
    }
}

/// `GET /changes` (see ``HangarRoutes``).
struct ChangeRoutes<Store: DocumentStore>: Sendable {
    let store: Store
    let options: HangarRouteOptions

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("changes") { request, context in try await changes(request, logger: context.logger) }
    }

    func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws(HangarHTTPError) -> Int? {
        try Answers.integer(text, name: name, in: range)
    }

    /// `GET /changes?since=N[&limit=M][&collection=C]`: the changes after sequence N as JSON lines
    /// (`application/x-ndjson`); with `Accept: text/event-stream`, a live stream of server-sent events whose
    /// `id` is the sequence, resumed after `Last-Event-ID` (else `since`, else from now). 410 when changes after
    /// N were pruned. The store's reserved collections (`_sync…`) are never shown; with a user
    /// (``HangarRouteOptions/Ownership/perUser``), only the changes of documents that user owns.
    func changes(_ request: Request, logger: Logger) async throws -> Response {
        let mode = try ChangeStreamMode(accept: request.headers[.accept])
        let query = request.uri.queryParameters
        let collection = query.get("collection")
        let limit = try integer(query.get("limit"), name: "limit", in: 1...Int.max)
        var since = try integer(query.get("since"), name: "since", in: 0...Int.max)
        if mode == .events, let lastEventID = Self.lastEventID(of: request) {
            since = try integer(lastEventID, name: "Last-Event-ID", in: 0...Int.max)
        }
        // Read before answering, so pruned changes are a 410 rather than a stream that ends at once.
        let start = since ?? (mode == .lines ? 0 : nil)
        let user = try HangarUser.scope(options.ownership)
        let read = try await store.read(after: try TokenHeader.token(request)) { reader in
            let last = try await reader.lastChangeSequence()
            guard mode == .lines else {
                return (try await reader.changes(since: start ?? last, in: collection, limit: 1), last)
            }
            return (
                try await Self.visibleChanges(after: start ?? last, in: collection, limit: limit, user, reader), last
            )
        }
        let (changes, last) = read.value
        switch mode {
        case .lines:
            var body: [UInt8] = []
            for change in changes { body += try Self.json(change) + [UInt8(ascii: "\n")] }
            return Response(
                status: .ok,
                headers: [.contentType: ChangeStreamMode.linesType, TokenHeader.name: read.token.description],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        case .events:
            return eventStream(
                after: start ?? last, collection: collection, user: user, request: request, logger: logger)
        }
    }

    /// The `Last-Event-ID` header an event-stream client sends when it reconnects.
    static func lastEventID(of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
    }

    /// Server-sent events, one per change after `sequence`, driven by ``DocumentStore/follow(after:in:)``
    /// (``ServerSentEvents``: a comment line first, a `: keep-alive` comment every
    /// ``HangarRouteOptions/eventStreamHeartbeat``).
    func eventStream(after sequence: Int, collection: String?, user: String?, request: Request, logger: Logger)
        -> Response
    {
        let feed = store.follow(after: sequence, in: collection)
        let store = self.store
        return ServerSentEvents.response(
            to: request, contentType: ChangeStreamMode.eventsType, opening: ": following changes after \(sequence)\n\n",
            heartbeat: options.eventStreamHeartbeat
        ) { send in
            // The feed ending or failing (a lost connection, say) ends the stream; the client resumes from its
            // last event id.
            do {
                for try await change in feed {
                    // The open scope needs no read: only the reserved collections are left out.
                    guard !Self.isReserved(change.collection) else { continue }
                    if user != nil {
                        let visible = try await store.read { try await Self.isVisible(change, user, $0) }
                        guard visible else { continue }
                    }
                    send(try Self.event(change))
                }
            } catch is CancellationError {
            } catch {
                logger.warning("The change stream ended: \(error)")
            }
        }
    }

    /// At most `limit` changes after `sequence` that the request may see (all of them without a limit).
    static func visibleChanges(
        after sequence: Int, in collection: String?, limit: Int?, _ user: String?, _ reader: some DocumentReader
    ) async throws -> [Change] {
        var visible: [Change] = []
        var after = sequence
        while true {
            let batch = try await reader.changes(since: after, in: collection, limit: limit.map { $0 - visible.count })
            for change in batch {
                if try await isVisible(change, user, reader) { visible.append(change) }
            }
            guard let last = batch.last, let limit, visible.count < limit else { return visible }
            after = last.sequence
        }
    }

    /// Whether a change is shown: never one of a reserved collection (`_sync…`); with a user, one of a document
    /// the user owns.
    static func isVisible(_ change: Change, _ user: String?, _ reader: some DocumentReader) async throws -> Bool {
        guard !isReserved(change.collection) else { return false }
        return try await SyncOwnership.isVisible(change.key, in: change.collection, to: user, reader)
    }

    /// Whether `collection` is one of the store's reserved collections (its bytes start `_sync`), never shown.
    static func isReserved(_ collection: String) -> Bool { collection.utf8.starts(with: "_sync".utf8) }

    /// A change as one server-sent event: `id` its sequence, `event: change`, `data` its JSON line.
    static func event(_ change: Change) throws(HangarHTTPError) -> String {
        "id: \(change.sequence)\nevent: change\ndata: \(String(decoding: try json(change), as: UTF8.self))\n\n"
    }

    /// A change as one line of JSON: `{"class":…,"collection":…,"committedAt":…,"key":…,"kind":…,
    /// "majorVersion":…,"minorVersion":…,"revision":…,"sequence":…,"transaction":…}` (keys sorted).
    static func json(_ change: Change) throws(HangarHTTPError) -> [UInt8] {
        var entry: PropertyList.Dictionary = [
            "sequence": .integer(.init(change.sequence)), "transaction": .integer(.init(change.transaction)),
            "collection": .string(change.collection), "key": .string(change.key), "kind": .string(change.kind.rawValue),
            "revision": .integer(.init(change.revision)), "majorVersion": .integer(.init(change.version.major)),
            "minorVersion": .integer(.init(change.version.minor)),
            "committedAt": .date(change.committedAt.timeIntervalSinceReferenceDate),
        ]
        if let tag = change.classTag { entry["class"] = .string(tag) }
        do {
            return try BodyFormat.json.encode(.dictionary(entry))
        } catch {
            throw HangarHTTPError(.internalServerError, "A change cannot be written as JSON: \(error)")
        }
    }
}
