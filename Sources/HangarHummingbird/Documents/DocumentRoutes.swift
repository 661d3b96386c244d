import Foundation
import Hangar
import HangarSync
import Hummingbird
import PropertyList

/// The routes of one collection's documents (see ``HangarRoutes``).
struct DocumentRoutes<Store: DocumentStore>: Sendable {
    let store: Store
    let options: HangarRouteOptions
    let bodies: DocumentBodies
    var name: String { bodies.collection.name }

    init(store: Store, collection: ServedCollection, options: HangarRouteOptions) {
        self.store = store
        self.options = options
        self.bodies = DocumentBodies(collection: collection, configuration: store.configuration)
    }

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(name)) { request, _ in try await listKeys(request) }
        router.get(RouterPath("\(name)/:key")) { request, context in
            try await getDocument(request, key: try Self.key(context))
        }
        router.put(RouterPath("\(name)/:key")) { request, context in
            try await putDocument(request, key: try Self.key(context))
        }
        router.delete(RouterPath("\(name)/:key")) { request, context in
            try await deleteDocument(request, key: try Self.key(context))
        }
        router.get(RouterPath("\(name)/:key/history")) { request, context in
            try await history(request, key: try Self.key(context))
        }
        router.get(RouterPath("\(name)/:key/revisions/:revision")) { request, context in
            try await revision(request, key: try Self.key(context), revision: try Self.revision(context))
        }
        router.post(RouterPath("\(name)/:key/revisions/:revision/restore")) { request, context in
            try await restore(request, key: try Self.key(context), revision: try Self.revision(context))
        }
    }

    /// The route's `{key}`, percent-decoded (RFC 3986 §2.1): `caf%C3%A9` is `café`, `a%2Fb` is `a/b`; 400 when
    /// the decoded bytes are not UTF-8 text or hold NUL.
    static func key(_ context: some RequestContext) throws -> String {
        try PathSegment.decoded(try context.parameters.require("key"), what: "key")
    }

    /// The route's `{revision}`; 400 when it is not an integer (one that is not kept is 404).
    static func revision(_ context: some RequestContext) throws -> Int {
        try context.parameters.require("revision", as: Int.self)
    }

    /// The visible path of a document, its key percent-encoded: the `Location` of a created document.
    func location(of key: String) -> String {
        "/\(PathSegment.encoded(name))/\(PathSegment.encoded(key))"
    }

    /// The user whose documents this request sees (``HangarRouteOptions/ownership``).
    func user() throws(HangarHTTPError) -> String? { try HangarUser.scope(options.ownership) }

    /// The request body, at most ``HangarRouteOptions/maximumBodySize`` bytes (413 beyond).
    func body(of request: Request) async throws(HangarHTTPError) -> [UInt8] {
        let limit = options.maximumBodySize
        let tooLarge = HangarHTTPError(.contentTooLarge, "The body is larger than \(limit) bytes")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge
        } catch {
            throw HangarHTTPError(.badRequest, "The body could not be read: \(error)")
        }
    }

    /// An integer query parameter in `range`; `nil` when absent, 400 otherwise.
    func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws(HangarHTTPError) -> Int? {
        try Answers.integer(text, name: name, in: range)
    }
}
