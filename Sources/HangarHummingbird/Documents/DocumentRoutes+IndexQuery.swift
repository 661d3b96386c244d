import Hangar
import HangarSync
import Hummingbird
import PropertyList

// `GET /C?index=NAME…`: a keyset page of an index query (``Hangar/IndexQuery``), its count, or its documents; with
// `Accept: text/event-stream`, the query live.

extension DocumentRoutes {
    /// `GET /C?index=NAME` with at most one of `value=V`, `prefix=V`, or `from=V`/`after_value=V` and/or
    /// `to=V`/`before_value=V`; `order=asc|desc`, `limit=N`, `after=CURSOR`: `{"keys": [...], "next": CURSOR}`
    /// (`next` only when more follow); `include=documents` adds `documents`; `count=true` answers `{"count": N}`.
    /// A value is JSON, or a string when the text is not JSON. 400 with the reason for a bad parameter.
    func queryIndex(_ request: Request, index: String) async throws -> Response {
        // `Accept: text/event-stream`: the same query, live (DocumentRoutes+LiveQuery.swift).
        let live = Self.asksForEvents(request)
        let formats = live ? [] : try Answers.formats(request)
        let parameters = request.uri.queryParameters
        let declared = store.configuration.options(for: name).indexes
        guard declared.contains(where: { $0.name.hasSameBytes(as: index) }) else {
            let names = declared.map(\.name).sorted().joined(separator: ", ")
            throw HangarHTTPError(.badRequest, "No index \(index.debugDescription); the indexes are \(names)")
        }
        for refused in ["offset", "class"] where parameters.get(refused) != nil {
            throw HangarHTTPError(
                .badRequest, "\(refused) does not combine with index: index queries page with after=CURSOR")
        }
        var query = IndexQuery(collection: name, index: index, match: try Self.match(parameters))
        switch parameters.get("order") {
        case nil, "asc": query.order = .ascending
        case "desc": query.order = .descending
        case let other?: throw HangarHTTPError(.badRequest, "order is asc or desc, not \(other.debugDescription)")
        }
        query.limit =
            try integer(parameters.get("limit"), name: "limit", in: 1...options.maximumPageSize)
            ?? options.defaultPageSize
        query.after = parameters.get("after").map(IndexCursor.init)
        let counting = try Self.flag(parameters.get("count"), name: "count")
        let withDocuments: Bool
        switch parameters.get("include") {
        case nil: withDocuments = false
        case "documents": withDocuments = true
        case let other?: throw HangarHTTPError(.badRequest, "include is documents, not \(other.debugDescription)")
        }
        let user = try user()
        if live {
            guard !counting, !withDocuments else {
                throw HangarHTTPError(
                    .badRequest, "A live query (text/event-stream) answers keys: count= and include= do not combine")
            }
            return try await liveQuery(query, user: user, request: request)
        }
        if counting {
            let count = try await store.read { [query] reader in
                var query = query
                if let user {
                    guard try await reader.hasOwnersIndex() else {
                        throw HangarHTTPError(
                            .badRequest, "count=true needs the owners index, which this store has not built")
                    }
                    query.owner = user
                }
                return try await reader.count(query)
            }
            return try Answers.respond(["count": .integer(.init(count))], in: formats)
        }
        let page = try await store.read { [query] reader in
            try await Self.visiblePage(query, documents: withDocuments, user: user, in: reader)
        }
        var answer: PropertyList.Dictionary = ["keys": .array(page.keys.map { .string($0) })]
        if let next = page.next { answer["next"] = .string(next.text) }
        if withDocuments {
            var documents: [PropertyList] = []
            for stored in page.documents {
                documents.append([
                    "key": .string(stored.key), "revision": .integer(.init(stored.revision)),
                    "value": try bodies.envelope(of: stored),
                ])
            }
            answer["documents"] = .array(documents)
        }
        return try Answers.respond(.dictionary(answer), in: formats)
    }

    /// A page of `query` holding only what `user` may see: one scan that checks each entry against the owners
    /// index (``Hangar/IndexQuery/owner``). A store that has not built it (opened read-only) checks key by key:
    /// pages are read on until `limit` visible keys are found or none follow, so that the cursor still marks
    /// exactly where the next page starts.
    static func visiblePage(_ query: IndexQuery, documents: Bool, user: String?, in reader: some DocumentReader)
        async throws -> IndexPage
    {
        guard let user else { return try await reader.page(query, documents: documents) }
        var query = query
        if try await reader.hasOwnersIndex() {
            query.owner = user
            return try await reader.page(query, documents: documents)
        }
        let limit = query.limit
        var keys: [String] = []
        var stored: [StoredDocument] = []
        while true {
            query.limit = limit - keys.count
            let page = try await reader.page(query, documents: documents)
            for (position, key) in page.keys.enumerated()
            where try await SyncOwnership.isVisible(key, in: query.collection, to: user, reader) {
                keys.append(key)
                if documents { stored.append(page.documents[position]) }
            }
            guard keys.count < limit, let next = page.next else {
                return IndexPage(keys: keys, documents: stored, next: page.next)
            }
            query.after = next
        }
    }

    /// The match the parameters ask for; 400 for a combination that is not one.
    static func match(_ parameters: Parameters) throws(HangarHTTPError) -> IndexQuery.Match {
        func value(_ name: String) -> PropertyList? { parameters.get(name).map(IndexQuery.value(parsing:)) }
        let (equal, prefix) = (value("value"), value("prefix"))
        let (from, after, to, before) = (value("from"), value("after_value"), value("to"), value("before_value"))
        let ranged = [from, after, to, before].contains { $0 != nil }
        if [equal != nil, prefix != nil, ranged].filter({ $0 }).count > 1 {
            throw HangarHTTPError(
                .badRequest, "Give at most one of value=, prefix=, or from=/to= (after_value=/before_value=)")
        }
        if from != nil && after != nil { throw HangarHTTPError(.badRequest, "Give from= or after_value=, not both") }
        if to != nil && before != nil { throw HangarHTTPError(.badRequest, "Give to= or before_value=, not both") }
        if let equal { return .equal(equal) }
        if let prefix { return .prefix(of: prefix) }
        let lower = from.map(IndexQuery.Bound.included) ?? after.map(IndexQuery.Bound.excluded)
        let upper = to.map(IndexQuery.Bound.included) ?? before.map(IndexQuery.Bound.excluded)
        return lower == nil && upper == nil ? .all : .range(from: lower, to: upper)
    }

    static func flag(_ text: String?, name: String) throws(HangarHTTPError) -> Bool {
        switch text {
        case nil, "false": return false
        case "true": return true
        case let other?: throw HangarHTTPError(.badRequest, "\(name) is true or false, not \(other.debugDescription)")
        }
    }
}
