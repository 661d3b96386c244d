import Foundation
import Hangar
import Hummingbird
import Logging

extension HangarStudio {
    /// Answers a request under the studio's prefix: the static assets to anyone; everything else only with the
    /// token (``StudioAccess``), a page's first request (`?token=`) turned into a cookie and redirected to the
    /// same URL without it.
    func answer(_ request: Request, path: StudioPath, logger: Logger) async throws -> Response {
        let segments = path.segments
        let method = request.method
        if segments.count == 2, segments[0] == "assets" {
            guard method == .get || method == .head else { throw StudioError(.methodNotAllowed, "Assets are read") }
            return try StudioAssets.response(segments[1])
        }
        let grant = try access.grant(request)
        if segments.first != "api" {
            guard method == .get || method == .head else { throw StudioError(.methodNotAllowed, "Pages are read") }
            guard StudioPage.isPage(segments) else { throw StudioError(.notFound, "No such page") }
            if grant == .query, let cookie = access.setCookie(path: options.prefix) {
                return Response(
                    status: .seeOther,
                    headers: [
                        .location: Self.withoutToken(path: request.uri.path, query: request.uri.query),
                        .setCookie: cookie,
                    ])
            }
            return StudioPage.response(prefix: options.prefix, writable: options.allowsWrites)
        }
        return try await api(Array(segments.dropFirst()), path: path, request, logger: logger)
    }

    /// The JSON API: `overview`, `formats`, `versions/C`, `collections/C`, `documents/C/K[/diff|/download|/ACTION]`,
    /// `changes[/events]`, `sync`, `health/check`, `health/backup`.
    func api(_ route: [String], path: StudioPath, _ request: Request, logger: Logger) async throws -> Response {
        let reading = request.method == .get || request.method == .head
        let writing = request.method == .post
        switch (route.first ?? "", route.count) {
        case ("overview", 1) where reading: return try await overview()
        case ("formats", 1) where reading: return try await formats()
        case ("versions", 2) where reading: return try await versions(try path.decoded(2, what: "collection"))
        case ("collections", 2) where reading:
            return try await collectionPage(try path.decoded(2, what: "collection"), request)
        case ("documents", 2...4):
            let collection = try path.decoded(2, what: "collection")
            // A key that cannot be a path segment (empty, `.`, `..`) comes as `?key=`.
            let queryKey = request.uri.queryParameters.get("key")
            let key = try queryKey ?? path.decoded(3, what: "key")
            let actionIndex = queryKey == nil ? 3 : 2
            let action = route.count > actionIndex ? route[actionIndex] : ""
            guard route.count <= actionIndex + 1 else { break }
            switch (action, reading, writing) {
            case ("", true, _): return try await document(collection, key, request)
            case ("diff", true, _): return try await diff(collection, key, request)
            case ("download", true, _): return try await download(collection, key, request)
            case (let action, _, true) where !action.isEmpty:
                return try await write(action, collection, key, request)
            default: break
            }
        case ("changes", 1) where reading: return try await recentChanges(request)
        case ("changes", 2) where reading && route[1] == "events":
            return try await changeEvents(request, logger: logger)
        case ("sync", 1) where reading: return try await syncState()
        case ("health", 2) where writing && route[1] == "check": return try await check(request)
        case ("health", 2) where writing && route[1] == "backup": return try await backup(request)
        default: break
        }
        throw StudioError(.notFound, "No such studio request: \(request.method) /\(route.joined(separator: "/"))")
    }

    /// The request's path and query without its `token` query parameter (the rest as sent).
    static func withoutToken(path: String, query: String?) -> String {
        let kept = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") }
        return path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}
