import Hangar
import HangarSync
import Hummingbird
import PropertyList

// `GET /C?index=NAME…` with `Accept: text/event-stream`: the index query live (``Hangar/DocumentStore/observe(_:)``),
// as server-sent events.

extension DocumentRoutes {
    /// Whether the request's `Accept` prefers `text/event-stream` to every other type it names.
    static func asksForEvents(_ request: Request) -> Bool {
        guard let header = request.headers[.accept] else { return false }
        return MediaRange.best(in: header) { $0 == "text/event-stream" } ?? false
    }

    /// The live query's events: `result` with `{"keys": [...], "sequence": N}` (the first page, as of change N), then
    /// `change` with `{"added": [...], "keys": [...], "removed": [...], "revised": [...], "sequence": N}` for each
    /// change that alters the page, until the client leaves or the server stops (``ServerSentEvents``). With a user,
    /// the page holds only the user's documents, as the query's pages do (``visiblePage(_:documents:user:in:)``).
    /// The first page is read before answering, so a query the index cannot answer is a 400, not a stream; a failure
    /// later sends an `error` event with `{"reason": …, "status": N}` (the status and reason the same failure gets as an
    /// answer, ``HangarHTTPError``) and ends the stream.
    func liveQuery(_ query: IndexQuery, user: String?, request: Request) async throws -> Response {
        let collection = query.collection
        // The owners index in the page's scan, as for a plain query; a store without it filters key by key.
        var query = query
        if let user, try await store.read({ try await $0.hasOwnersIndex() }) { query.owner = user }
        let live =
            if let user, query.owner == nil {
                store.observe(query) { key, reader in
                    try await SyncOwnership.isVisible(key, in: collection, to: user, reader)
                }
            } else {
                store.observe(query)
            }
        var iterator = live.makeAsyncIterator()
        guard let first = try await iterator.next() else { throw CancellationError() }
        let opening = try Self.event(
            "result", ["keys": Self.keys(first.keys), "sequence": .integer(.init(first.sequence))])
        return ServerSentEvents.response(
            to: request, contentType: "text/event-stream", opening: opening, heartbeat: options.eventStreamHeartbeat
        ) { [iterator] send in
            var iterator = iterator
            do {
                while let element = try await iterator.next() {
                    guard let changes = element.changes else { continue }
                    send(
                        try Self.event(
                            "change",
                            [
                                "sequence": .integer(.init(element.sequence)), "keys": Self.keys(element.keys),
                                "added": Self.keys(changes.added), "removed": Self.keys(changes.removed),
                                "revised": Self.keys(changes.revised),
                            ]))
                }
            } catch {
                // The status and reason the same failure gets as an answer (503 for a lost connection, 410 for
                // pruned changes, …), so a client decides by the status, as it does for any request.
                let failure = HangarHTTPError.from(error)
                let fields: PropertyList.Dictionary = [
                    "status": .integer(.init(failure.status.code)), "reason": .string(failure.reason),
                ]
                if let event = try? Self.event("error", fields) { send(event) }
            }
        }
    }

    private static func keys(_ keys: [String]) -> PropertyList { .array(keys.map { .string($0) }) }

    /// One server-sent event: `event: NAME`, `data:` the fields as one line of JSON (keys sorted).
    private static func event(_ name: String, _ fields: PropertyList.Dictionary) throws(HangarHTTPError) -> String {
        do {
            let json = String(decoding: try BodyFormat.json.encode(.dictionary(fields)), as: UTF8.self)
            return "event: \(name)\ndata: \(json)\n\n"
        } catch {
            throw HangarHTTPError(.internalServerError, "A live query's event cannot be written as JSON: \(error)")
        }
    }
}
