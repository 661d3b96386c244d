import Foundation
import Hangar
import HangarHummingbird
import Hummingbird
import PropertyList

/// `GET api/collections/{C}`: a page of a collection's documents, filtered and sorted, with the cursor of the next
/// page (keyset: the last row's sort value and key, so a page stays right while documents come and go).
///
/// Query: `prefix` (of the key, by bytes), `class` (class tag), `version` (`major.minor`), `index` and `value`
/// (a declared index holding the value, read as text, integer, real or boolean), `sort` (`key`, `-key`,
/// `revision`, `-revision`, `updated`, `-updated`), `after` and `afterValue` (the cursor), `limit`.
struct CollectionQuery {
    enum Sort: String {
        case key, keyDescending = "-key", revision, revisionDescending = "-revision", updated,
            updatedDescending = "-updated"
    }

    var prefix: String?
    var classTag: String?
    var version: DocumentVersion?
    var index: (name: String, value: String)?
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
        if let name = text("index") {
            guard let value = query.get("value") else { throw HangarHTTPError(.badRequest, "index needs a value") }
            index = (name, value)
        }
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
        let rows = try await catalog.rows(of: collection)
        var indexed: Set<ExactString>?
        if let index = query.index {
            indexed = try await keys(in: collection, index: index.name, matching: index.value)
        }
        var matched = rows.filter { query.admits($0) && (indexed?.contains(ExactString($0.key)) ?? true) }
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
        ]
        if let last = page.last, start + page.count < matched.count {
            answer["next"] = .dictionary(["after": .string(last.key), "afterValue": .string(query.sortValue(last))])
        }
        return StudioJSON.response(answer)
    }

    /// The keys whose index `name` holds `text` read as text, and as an integer, real or boolean when it reads so.
    func keys(in collection: String, index name: String, matching text: String) async throws -> Set<ExactString> {
        var candidates: [PropertyList] = [.string(text)]
        if let integer = Int64(text) { candidates.append(.integer(.init(integer))) }
        if let real = Double(text) { candidates.append(.real(real)) }
        if text == "true" || text == "false" { candidates.append(.boolean(text == "true")) }
        let values = candidates
        let found = try await store.read { reader in
            var keys: [String] = []
            for candidate in values {
                keys += try await reader.keys(in: collection, index: name, equalTo: candidate)
            }
            return keys
        }
        return Set(found.map { ExactString($0) })
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
