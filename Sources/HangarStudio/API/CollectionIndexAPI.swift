import Hangar
import HangarHummingbird
import Hummingbird
import PropertyList

// `GET api/collections/{C}?index=NAME…`: a keyset page of any index the store has built (``Hangar/IndexQuery``),
// read from the index, with the cursor of the next page.

extension HangarStudio {
    /// A page of index `index` of `collection`: `value=V`, `valuePrefix=V` (the first components of a compound
    /// index's values) or `from=V`/`to=V` (inclusive, either may be left out), `order=asc|desc`, `limit`, `cursor`
    /// (the `next.cursor` of the page before) and `start` (how many rows the pages before showed, for the status
    /// line). V is JSON, or a string when the text is not JSON, as everywhere in Hangar
    /// (``Hangar/IndexQuery/value(parsing:)``). The key filters and sorts do not combine with it: 400.
    func indexPage(_ collection: String, _ request: Request, index: String) async throws -> Response {
        func text(_ name: String) -> String? { StudioParameters.text(request, name) }
        for refused in ["prefix", "class", "version", "after"] where text(refused) != nil {
            throw HangarHTTPError(
                .badRequest, "\(refused) does not combine with index: an index page is in index order")
        }
        if let sort = text("sort"), sort != "key" {
            throw HangarHTTPError(.badRequest, "sort does not combine with index: an index page is in index order")
        }
        let indexes = try await indexNames(of: collection)
        guard indexes.contains(where: { $0.hasSameBytes(as: index) }) else {
            let names = indexes.isEmpty ? "it has none" : "its indexes are " + indexes.joined(separator: ", ")
            throw HangarHTTPError(
                .badRequest, "No index \(index.debugDescription) is built for \(collection); \(names)")
        }
        let parse = IndexQuery.value(parsing:)
        let (value, prefix, from, to) = (text("value"), text("valuePrefix"), text("from"), text("to"))
        let match: IndexQuery.Match
        switch (value, prefix, from ?? to) {
        case (nil, nil, nil): match = .all
        case (let value?, nil, nil): match = .equal(parse(value))
        case (nil, let prefix?, nil): match = .prefix(of: parse(prefix))
        case (nil, nil, _?):
            match = .range(from: from.map { .included(parse($0)) }, to: to.map { .included(parse($0)) })
        default: throw HangarHTTPError(.badRequest, "Give at most one of value, valuePrefix, or from/to")
        }
        var query = IndexQuery(collection: collection, index: index, match: match)
        switch text("order") {
        case nil, "asc": query.order = .ascending
        case "desc": query.order = .descending
        case let other?: throw HangarHTTPError(.badRequest, "order is asc or desc, not \(other.debugDescription)")
        }
        query.limit = try StudioParameters.integer(request, "limit", in: 1...1000) ?? options.pageSize
        query.after = text("cursor").map(IndexCursor.init)
        let start = try StudioParameters.integer(request, "start", in: 0...Int.max) ?? 0
        let (page, matched) = try await store.read { [query] reader in
            (try await reader.page(query, documents: true), try await reader.count(query))
        }
        let count = try await catalog.rows(of: collection).count
        var answer: PropertyList.Dictionary = [
            "collection": .string(collection), "count": StudioJSON.int(count), "matched": StudioJSON.int(matched),
            "start": StudioJSON.int(start),
            "rows": .array(page.documents.map { .dictionary(Self.json(DocumentRow($0))) }),
            "indexes": .array(indexes.map { .string($0) }), "index": .string(index),
        ]
        if let next = page.next {
            answer["next"] = .dictionary([
                "cursor": .string(next.text), "start": StudioJSON.int(start + page.documents.count),
            ])
        }
        return StudioJSON.response(answer)
    }

    /// The indexes the store has built for `collection`, as it recorded them (no app definitions needed).
    func indexNames(of collection: String) async throws -> [String] {
        try await store.read { try await $0.indexNames(in: collection) }
    }
}
