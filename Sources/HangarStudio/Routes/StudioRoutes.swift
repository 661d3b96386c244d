import Foundation
import Hangar
import HangarHummingbird
import Hummingbird

extension HangarStudio {
    /// The studio's routes, to mount at ``StudioOptions/prefix``: the static assets to anyone; behind the token
    /// (``StudioAccessMiddleware``) the pages (one HTML shell) and the JSON API:
    ///
    /// - `GET api/overview`, `api/formats`, `api/versions/C`, `api/collections/C`, `api/changes`, `api/changes/events`, `api/sync`;
    /// - `GET api/documents/C/K`, `…/diff`, `…/download`; `POST …/restore`, `…/delete`, `…/save`; a key that cannot
    ///   be a path segment (empty, `.`, `..`) comes as `?key=K`, the action then right after the collection;
    /// - `POST api/health/check`, `api/health/backup`.
    ///
    /// Path segments are percent-decoded once, after routing (``HangarHummingbird``'s `PathSegment`), so `a%2Fb` is
    /// the key `a/b`; every error is answered as the HTTP layer answers it (``StudioResponseMiddleware``).
    func routes<Context: RequestContext>(context: Context.Type) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.add(middleware: StudioResponseMiddleware())
        routes.get("assets/:name") { _, context in try StudioAssets.response(try context.parameters.require("name")) }
        routes.add(middleware: StudioAccessMiddleware(access: access))
        for path in StudioPage.paths {
            routes.get(RouterPath(path)) { request, _ in page(request) }
        }
        routes.get("api/overview") { _, _ in try await overview() }
        routes.get("api/formats") { _, _ in try await formats() }
        routes.get("api/versions/:collection") { _, context in
            try await versions(try StudioParameters.collection(context))
        }
        routes.get("api/collections/:collection") { request, context in
            try await collectionPage(try StudioParameters.collection(context), request)
        }
        addDocumentRoutes(to: routes)
        routes.get("api/changes") { request, _ in try await recentChanges(request) }
        routes.get("api/changes/events") { request, context in try await changeEvents(request, logger: context.logger) }
        routes.get("api/sync") { _, _ in try await syncState() }
        routes.post("api/health/check") { request, _ in try await check(request) }
        routes.post("api/health/backup") { request, _ in try await backup(request) }
        return routes
    }

    /// `api/documents/C/K[/ACTION]`, and `api/documents/C[/ACTION]?key=K` for a key that is no path segment.
    private func addDocumentRoutes<Context: RequestContext>(to routes: RouteCollection<Context>) {
        routes.get("api/documents/:collection") { request, context in
            try await read(try DocumentAddress(request, context, action: nil), request)
        }
        routes.get("api/documents/:collection/:key") { request, context in
            try await read(try DocumentAddress(request, context, action: nil), request)
        }
        routes.post("api/documents/:collection/:key") { request, context in
            try await write(try DocumentAddress(request, context, action: nil), request)
        }
        for action in ["diff", "download"] {
            routes.get(RouterPath("api/documents/:collection/:key/" + action)) { request, context in
                try await read(try DocumentAddress(request, context, action: action), request)
            }
        }
        for action in ["restore", "delete", "save"] {
            routes.post(RouterPath("api/documents/:collection/:key/" + action)) { request, context in
                try await write(try DocumentAddress(request, context, action: action), request)
            }
        }
    }

    /// A page: the HTML shell, or, when the URL carries the token (the middleware has checked it), a redirect to
    /// the same URL without it that turns it into an `HttpOnly` cookie.
    func page(_ request: Request) -> Response {
        if request.uri.queryParameters.get("token") != nil, let cookie = access.setCookie(path: options.prefix) {
            return Response(
                status: .seeOther,
                headers: [
                    .location: Self.withoutToken(path: request.uri.path, query: request.uri.query),
                    .setCookie: cookie,
                ])
        }
        return StudioPage.response(prefix: options.prefix, writable: options.allowsWrites)
    }

    /// The request's path and query without its `token` query parameter (the rest as sent).
    static func withoutToken(path: String, query: String?) -> String {
        let kept = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") }
        return path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}

/// The document a `api/documents/…` request names, and what it asks of it: `documents/C/K[/ACTION]`, or, with
/// `?key=K` (a key that cannot be a path segment), `documents/C[/ACTION]`, the segment after the collection then
/// being the action.
struct DocumentAddress: Sendable {
    let collection: String
    let key: String
    /// `""` for the document itself, else `diff`, `download`, `restore`, `delete` or `save`.
    let action: String

    init(_ request: Request, _ context: some RequestContext, action routed: String?) throws {
        collection = try StudioParameters.collection(context)
        let segment = context.parameters.get("key")
        if let queryKey = request.uri.queryParameters.get("key") {
            // The key is in the query: a segment after the collection is the action, and nothing may follow it.
            guard routed == nil else { throw HangarHTTPError(.notFound, "No such studio request") }
            // As a path segment's (`PathSegment`): no key holds NUL.
            guard !queryKey.utf8.contains(0) else {
                throw HangarHTTPError(.badRequest, "The key in the query holds NUL")
            }
            key = queryKey
            action = segment ?? ""
        } else {
            guard let segment else { throw HangarHTTPError(.badRequest, "The path names no key") }
            key = try PathSegment.decoded(segment, what: "key")
            action = routed ?? ""
        }
    }
}

/// The studio's reading of a request's parameters, through the HTTP layer's parsers (``HangarHummingbird``'s
/// `PathSegment` and `Answers.integer`).
enum StudioParameters {
    /// The route's `{collection}`, percent-decoded; 400 when it cannot be.
    static func collection(_ context: some RequestContext) throws -> String {
        try PathSegment.decoded(try context.parameters.require("collection"), what: "collection")
    }

    /// Query parameter `name`; `nil` when absent or empty (the pages' forms send their empty fields).
    static func text(_ request: Request, _ name: String) -> String? {
        guard let value = request.uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }

    /// Query parameter `name` as an integer in `range`; `nil` when absent or empty, 400 otherwise.
    static func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>) throws(HangarHTTPError)
        -> Int?
    {
        try Answers.integer(text(request, name), name: name, in: range)
    }
}
