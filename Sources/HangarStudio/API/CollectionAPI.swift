import Foundation
import Hangar
import HangarHummingbird
import Hummingbird
import PropertyList

/// `GET api/collections/{C}`: a page of a collection's documents, filtered and sorted, with the cursor of the next
/// page (keyset: the last row's sort value and key, so a page stays right while documents come and go).
///
/// Query: `prefix` (of the key, by bytes), `class` (class tag), `version` (`major.minor`), `sort` (`key`, `-key`,
/// `revision`, `-revision`, `updated`, `-updated`), `after` and `afterValue` (the cursor), `limit`. With `index`,
/// the page is a page of that index instead (``HangarStudio/indexPage(_:_:index:)``).
struct CollectionQuery {
    enum Sort: String {
        case key, keyDescending = "-key", revision, revisionDescending = "-revision", updated,
            updatedDescending = "-updated"
    }

    var prefix: String?
    var classTag: String?
    var version: DocumentVersion?
    var index: String?
    var sort = Sort.key
    var after: (key: String, value: String)?
    var limit: Int

    init(_ request: Request, pageSize: Int) throws(HangarHTTPError) {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { StudioParameters.text(request, name) }
        prefix = text("prefix")
        classTag = text("class")
        if let version = text("version") {
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0 else {
                throw HangarHTTPError(.badRequest, "version must be MAJOR.MINOR, as 2.0")
            }
            self.version = DocumentVersion(major: major, minor: minor)
        }
        index = text("index")
        if let sort = text("sort") {
            guard let parsed = Sort(rawValue: sort) else {
                throw HangarHTTPError(.badRequest, "sort must be key, -key, revision, -revision, updated or -updated")
            }
            self.sort = parsed
        }
        if let key = query.get("after") { after = (key, query.get("afterValue") ?? "") }
        limit = try StudioParameters.integer(request, "limit", in: 1...1000) ?? pageSize
    }

    /// Whether `row` passes the filters other than the index (which the store answers).
    func admits(_ row: DocumentRow) -> Bool {
        if let prefix, !row.key.utf8.starts(with: prefix.utf8) { return false }
        if let classTag, !(row.classTag?.hasSameBytes(as: classTag) ?? false) { return false }
        if let version, row.version != version { return false }
        return true
    }

    /// The sort value of `row` as the cursor carries it.
    func sortValue(_ row: DocumentRow) -> String {
        switch sort {
        case .key, .keyDescending: ""
        case .revision, .revisionDescending: String(row.revision)
        case .updated, .updatedDescending: String(row.updatedAt.timeIntervalSinceReferenceDate)
        }
    }

    /// Whether `a` comes before `b` in this sort (ties broken by key bytes).
    func precedes(_ a: (value: String, key: String), _ b: (value: String, key: String)) -> Bool {
        let keyOrder = a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
        let keysEqual = a.key.hasSameBytes(as: b.key)
        switch sort {
        case .key: return keyOrder
        case .keyDescending: return !keyOrder && !keysEqual
        case .revision, .updated, .revisionDescending, .updatedDescending:
            let x = Double(a.value) ?? 0
            let y = Double(b.value) ?? 0
            let descending = sort == .revisionDescending || sort == .updatedDescending
            if x != y { return descending ? x > y : x < y }
            return descending ? (!keyOrder && !keysEqual) : keyOrder
        }
    }
}

extension HangarStudio {
    func collectionPage(_ collection: String, _ request: Request) async throws -> Response {
        let query = try CollectionQuery(request, pageSize: options.pageSize)
        if let index = query.index { return try await indexPage(collection, request, index: index) }
        let rows = try await catalog.rows(of: collection)
        var matched = rows.filter { query.admits($0) }
        if query.sort != .key {
            matched.sort { query.precedes((query.sortValue($0), $0.key), (query.sortValue($1), $1.key)) }
        }
        var start = 0
        if let after = query.after {
            let cursor = (value: after.value, key: after.key)
            start = matched.firstIndex { query.precedes(cursor, (query.sortValue($0), $0.key)) } ?? matched.count
        }
        let page = matched[start..<min(matched.count, start + query.limit)]
        var answer: PropertyList.Dictionary = [
            "collection": .string(collection), "count": StudioJSON.int(rows.count),
            "matched": StudioJSON.int(matched.count), "start": StudioJSON.int(start),
            "rows": .array(page.map { .dictionary(Self.json($0)) }),
            "indexes": .array(try await indexNames(of: collection).map { .string($0) }),
        ]
        if let last = page.last, start + page.count < matched.count {
            answer["next"] = .dictionary(["after": .string(last.key), "afterValue": .string(query.sortValue(last))])
        }
        return StudioJSON.response(answer)
    }

    static func json(_ row: DocumentRow) -> PropertyList.Dictionary {
        [
            "key": .string(row.key), "revision": StudioJSON.int(row.revision),
            "version": StudioJSON.version(row.version.major, row.version.minor),
            "class": StudioJSON.optional(row.classTag), "updatedAt": StudioJSON.date(row.updatedAt),
            "size": StudioJSON.int(row.size),
        ]
    }
}
