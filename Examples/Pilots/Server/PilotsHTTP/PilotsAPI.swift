public import Hangar
public import HangarHummingbird
import Hummingbird
import PilotModels
import PropertyList

/// Settings of the Pilots HTTP API that a deployment chooses.
public struct PilotsAPIOptions: Sendable {
    /// The largest request body read, in bytes: a larger PUT is 413, a larger pushed document is rejected.
    /// Default 1 MiB.
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
    /// The raw bytes of an HS256 key (at least 32 bytes; a shorter key accepts no token): every route but
    /// `GET /health` then requires `Authorization: Bearer JWT` signed with it (``HangarHummingbird/BearerJWTIdentity``),
    /// whose `sub` is the user, and each user sees and writes only the documents they created. `nil`: the server
    /// is open, one scope for everyone.
    public var authKey: [UInt8]?
    /// Hangar Studio at `/studio` (read-only), behind the server's own authentication: `false` by default.
    public var studio = false
    /// With ``authKey``: the users (token `sub`s, compared by their bytes) who may open the studio, which shows
    /// every user's documents; nobody when empty.
    public var studioUsers: [String] = []

    /// The default options.
    public init() {}

    /// The library's route options these make.
    var routes: HangarRouteOptions {
        var routes = HangarRouteOptions()
        routes.maximumBodySize = maximumBodySize
        routes.defaultPageSize = defaultPageSize
        routes.maximumPageSize = maximumPageSize
        routes.eventStreamHeartbeat = eventStreamHeartbeat
        routes.ownership = authKey == nil ? .shared : .perUser
        return routes
    }
}

extension JSONConvention {
    /// The Pilot's: `dateOfBirth` is a date (its airplanes hold neither dates nor data), in every version.
    public static let pilots = JSONConvention(dateKeys: ["dateOfBirth"])
}

/// What pilots-server adds to the library's routes: `GET /health` and `GET /metrics`.
struct PilotsAPI<Store: DocumentStore>: Sendable {
    let store: Store
    let options: PilotsAPIOptions

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("health") { request, _ in try await health(request) }
        router.get("metrics") { _, _ in try metrics() }
    }

    /// `GET /health`: 200 with the engine, the schema version and the last change sequence, read in a read
    /// transaction; 503 with the reason when the store does not answer.
    func health(_ request: Request) async throws -> Response {
        guard let format = BodyFormat.negotiate(accept: request.headers[.accept]) else {
            throw HangarHTTPError(
                .notAcceptable,
                "None of the types in Accept is served: use application/json, application/x-plist+xml or "
                    + "application/x-plist")
        }
        let last: Int
        do {
            last = try await store.read { try await $0.lastChangeSequence() }
        } catch {
            throw HangarHTTPError(.serviceUnavailable, "The store does not answer: \(error)")
        }
        let report: PropertyList = [
            "status": "ok", "engine": .string(options.engine),
            "schemaVersion": .integer(.init(options.schemaVersion)), "lastChangeSequence": .integer(.init(last)),
        ]
        return Response(
            status: .ok, headers: [.contentType: format.mediaType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try format.encode(report))))
    }

    /// `GET /metrics`: the Prometheus text the server was given.
    func metrics() throws -> Response {
        guard let metricsText = options.metricsText else {
            throw HangarHTTPError(.notFound, "No metrics are collected")
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metricsText())))
    }
}

extension StoreConfiguration {
    /// The configuration the Pilots server opens its store with: the Pilots registry, every pilot checked
    /// against the `Pilot` model whichever way it comes in (``Hangar/CollectionOptions/documents(of:history:indexes:)``),
    /// four earlier revisions kept per pilot (none of Hangar Sync's remembered answers), and the indexes
    /// `GET /pilots?index=NAME…` queries: `airplanes.registrationNumber`, `homeAirfield`, the compound
    /// `homeAirfieldName` (home airfield, then name) and `airframeHours` (every airplane's)
    /// (``PilotModels/Pilot/queryIndexes``).
    public static func pilotsServer() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = .documents(
            of: Pilot.self, history: .keepLast(4),
            indexes: [.path("airplanes", "registrationNumber"), .path("homeAirfield")] + Pilot.queryIndexes)
        // Hangar Sync's remembered answers, once forgotten, leave the store.
        return configuration.keepingNoSyncHistory()
    }
}
