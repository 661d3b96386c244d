import Hangar
import Hummingbird
import PropertyList
import ServiceLifecycle

/// How `GET /changes` answers: JSON lines of what is committed now, or a live stream of server-sent events.
enum ChangeStreamMode {
    /// `application/x-ndjson`: one change per line, then the response ends.
    case lines
    /// `text/event-stream`: one event per change as it commits, until the client leaves or the server stops.
    case events

    static let linesType = "application/x-ndjson"
    static let eventsType = "text/event-stream"

    /// The mode `Accept` asks for (JSON lines without one); 406 for anything else.
    init(accept header: String?) throws(APIError) {
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
            throw APIError(.notAcceptable, "/changes is served as \(Self.linesType) or \(Self.eventsType)")
        }
        self = mode
    }
}

extension PilotsAPI {
    /// `GET /changes?since=N[&limit=M][&collection=C]`: the changes after sequence N as JSON lines
    /// (`application/x-ndjson`); with `Accept: text/event-stream`, a live stream of server-sent events whose
    /// `id` is the sequence, resumed after `Last-Event-ID` (else `since`, else from now). 410 when changes after
    /// N were pruned.
    func changes(_ request: Request) async throws -> Response {
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
        let (changes, last) = try await store.read { reader in
            let last = try await reader.lastChangeSequence()
            let changes = try await reader.changes(
                since: start ?? last, in: collection, limit: mode == .lines ? limit : 1)
            return (changes, last)
        }
        switch mode {
        case .lines:
            var body: [UInt8] = []
            for change in changes { body += try Self.json(change) + [UInt8(ascii: "\n")] }
            return Response(
                status: .ok, headers: [.contentType: ChangeStreamMode.linesType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        case .events:
            return eventStream(after: start ?? last, collection: collection)
        }
    }

    /// The `Last-Event-ID` header an event-stream client sends when it reconnects.
    static func lastEventID(of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
    }

    /// Server-sent events, one per change after `sequence`, driven by ``DocumentStore/follow(after:in:)``; a
    /// comment line first, so a client knows it is following. Ends when the client leaves (the follow is
    /// cancelled) and, cleanly, when the server shuts down gracefully.
    func eventStream(after sequence: Int, collection: String?) -> Response {
        let feed = store.follow(after: sequence, in: collection)
        let events = AsyncStream<ByteBuffer> { continuation in
            // A task of its own (it inherits the server's graceful-shutdown signal), cancelled when the response
            // stops reading: a client gone, or the stream finished.
            let follower = Task {
                try? await cancelWhenGracefulShutdown {
                    for try await change in feed {
                        let data = try Self.json(change)
                        let event = "id: \(change.sequence)\nevent: change\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
                        continuation.yield(ByteBuffer(string: event))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in follower.cancel() }
        }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": following changes after \(sequence)\n\n"))
            for await event in events { try await writer.write(event) }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: ChangeStreamMode.eventsType, .cacheControl: "no-cache"], body: body)
    }

    /// A change as one line of JSON: `{"class":…,"collection":…,"committedAt":…,"key":…,"kind":…,
    /// "majorVersion":…,"minorVersion":…,"revision":…,"sequence":…,"transaction":…}` (keys sorted).
    static func json(_ change: Change) throws(APIError) -> [UInt8] {
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
            throw APIError(.internalServerError, "A change cannot be written as JSON: \(error)")
        }
    }
}
