public import Hangar
import HangarSQLite
import HangarSync
public import Hummingbird
import PilotModels
import PropertyList

/// Settings of the Pilots HTTP API that a deployment chooses.
public struct PilotsAPIOptions: Sendable {
    /// The largest request body read, in bytes; a larger one is 413. Default 1 MiB.
    public var maximumBodySize = 1 << 20
    /// How many keys `GET /pilots` answers when the request gives no `limit`.
    public var defaultPageSize = 100
    /// The largest `limit` `GET /pilots` accepts.
    public var maximumPageSize = 1000
    /// How often an event stream with nothing to say sends a `: keep-alive` comment.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// The engine `GET /health` names (`sqlite`, `postgresql`).
    public var engine = "sqlite"
    /// The store schema version `GET /health` reports.
    public var schemaVersion = 0
    /// How JSON bodies carry dates and data.
    public var jsonConvention = JSONConvention.pilots
    /// The text `GET /metrics` answers (Prometheus exposition format); `nil`: 404.
    public var metricsText: (@Sendable () -> [UInt8])?
    /// The raw bytes of an HS256 key (at least 32 bytes; a shorter key accepts no token): every route but `GET /health` then requires `Authorization: Bearer JWT`
    /// signed with it, whose `sub` is the user, and each user sees and writes only the documents they created.
    /// `nil`: the server is open, one scope for everyone.
    public var authKey: [UInt8]?

    /// The default options.
    public init() {}
}

/// The Pilots store over HTTP: documents with revisions as ETags, content negotiation, the change stream, health
/// and metrics, on any engine's ``DocumentStore``. See the routes in ``addRoutes(to:)``.
public struct PilotsAPI<Store: DocumentStore>: Sendable {
    /// The store every route reads and writes.
    public let store: Store
    /// The deployment's settings.
    public let options: PilotsAPIOptions
    let bodies: PilotBodies
    let collection = Pilot.collection

    /// The API over `store`, which must have been opened with ``Hangar/StoreConfiguration/pilotsServer()`` (or one like it).
    public init(store: Store, options: PilotsAPIOptions = PilotsAPIOptions()) {
        self.store = store
        self.options = options
        self.bodies = PilotBodies(configuration: store.configuration, jsonConvention: options.jsonConvention)
    }

    /// Adds the routes to `router`:
    ///
    /// - `GET /pilots` keys, paged and filtered; `GET|PUT|DELETE /pilots/{key}`; `GET /pilots/{key}/history`;
    ///   `GET /pilots/{key}/revisions/{n}`
    /// - `GET /changes` as JSON lines, or server-sent events with `Accept: text/event-stream`
    /// - `GET /health`, `GET /metrics`
    ///
    /// The routes throw the store's errors as they are: add ``HangarErrorMiddleware`` to `router` (as
    /// ``buildRouter(store:options:)`` does) to answer them.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("pilots") { request, _ in try await listKeys(request) }
        router.get("pilots/:key") { request, context in
            try await getDocument(request, key: try context.parameters.require("key"))
        }
        router.put("pilots/:key") { request, context in
            try await putDocument(request, key: try context.parameters.require("key"))
        }
        router.delete("pilots/:key") { request, context in
            try await deleteDocument(request, key: try context.parameters.require("key"))
        }
        router.get("pilots/:key/history") { request, context in
            try await history(request, key: try context.parameters.require("key"))
        }
        router.get("pilots/:key/revisions/:revision") { request, context in
            try await revision(
                request, key: try context.parameters.require("key"),
                revision: try context.parameters.require("revision", as: Int.self))
        }
        router.get("changes") { request, context in try await changes(request, logger: context.logger) }
        router.get("health") { request, _ in try await health(request) }
        router.get("metrics") { _, _ in try metrics() }
    }

    // MARK: Health and metrics

    /// `GET /health`: 200 with the engine, the schema version and the last change sequence, read in a read
    /// transaction; 503 with the reason when the store does not answer.
    func health(_ request: Request) async throws -> Response {
        let format = try responseFormat(request)
        let last: Int
        do {
            last = try await store.read { try await $0.lastChangeSequence() }
        } catch {
            throw APIError(.serviceUnavailable, "The store does not answer: \(error)")
        }
        let report: PropertyList = [
            "status": "ok", "engine": .string(options.engine),
            "schemaVersion": .integer(.init(options.schemaVersion)), "lastChangeSequence": .integer(.init(last)),
        ]
        return try respond(report, in: format)
    }

    /// `GET /metrics`: the Prometheus text the server was given.
    func metrics() throws -> Response {
        guard let metricsText = options.metricsText else { throw APIError(.notFound, "No metrics are collected") }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metricsText())))
    }

    // MARK: Shared

    /// The format to answer `request` in; 406 when its `Accept` offers none this server writes.
    func responseFormat(_ request: Request) throws(APIError) -> BodyFormat {
        guard let format = BodyFormat.negotiate(accept: request.headers[.accept]) else {
            throw APIError(
                .notAcceptable,
                "None of the types in Accept is served: use application/json, application/x-plist+xml or "
                    + "application/x-plist")
        }
        return format
    }

    /// `value` in `format`, with `status` and, for a document, its revision as the ETag.
    func respond(
        _ value: PropertyList, in format: BodyFormat, status: HTTPResponse.Status = .ok, revision: Int? = nil
    ) throws(APIError) -> Response {
        let bytes: [UInt8]
        do {
            bytes = try format.encode(value)
        } catch {
            throw APIError(.internalServerError, "The answer cannot be written as \(format.rawValue): \(error)")
        }
        var headers: HTTPFields = [.contentType: format.mediaType]
        if let revision { headers[.eTag] = RevisionTag.header(revision) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension StoreConfiguration {
    /// The configuration the Pilots server opens its store with: the Pilots registry and format, four earlier
    /// revisions kept per pilot (none of Hangar Sync's remembered answers), and the two indexes
    /// `GET /pilots?index=NAME&value=V` queries:
    /// `airplanes.registrationNumber` and `homeAirfield`.
    public static func pilotsServer() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(
            history: .keepLast(4),
            indexes: [.path("airplanes", "registrationNumber"), .path("homeAirfield")],
            format: Pilot.format)
        // Hangar Sync's remembered answers, once forgotten, leave the store.
        return configuration.keepingNoSyncHistory()
    }
}
