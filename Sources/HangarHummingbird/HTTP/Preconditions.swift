import Hummingbird

/// A document's revision as an entity tag: revision 3 is the strong `ETag: "3"`.
enum RevisionTag {
    /// The header value for `revision`.
    static func header(_ revision: Int) -> String { "\"\(revision)\"" }

    /// What an `If-Match` or `If-None-Match` header lists: any (`*`) or these revisions. Weak tags (`W/"3"`) are
    /// read as their revision (If-None-Match compares weakly); a tag that is not a revision matches nothing.
    enum Condition: Equatable {
        case any
        case revisions([Int])

        /// Whether a document at `revision` (nil: none) matches.
        func matches(_ revision: Int?) -> Bool {
            guard let revision else { return false }
            switch self {
            case .any: return true
            case .revisions(let list): return list.contains(revision)
            }
        }
    }

    /// The condition a header states; `nil` when the header is absent.
    static func condition(_ header: String?) -> Condition? {
        guard let header else { return nil }
        let tags = header.split(separator: ",").map { $0.trimmingSpaces() }
        if tags.contains("*") { return .any }
        return .revisions(
            tags.compactMap { tag in
                let opaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
                guard opaque.count >= 2, opaque.first == "\"", opaque.last == "\"" else { return nil }
                return Int(opaque.dropFirst().dropLast())
            })
    }
}

/// What a PUT or DELETE requires of the stored document, from `If-Match` and `If-None-Match`.
struct WritePreconditions {
    let ifMatch: RevisionTag.Condition?
    let ifNoneMatch: RevisionTag.Condition?

    /// The conditions of `request`.
    init(_ request: Request) {
        ifMatch = RevisionTag.condition(request.headers[.ifMatch])
        ifNoneMatch = RevisionTag.condition(request.headers[.ifNoneMatch])
    }

    /// The revision to hand the store as `expectedRevision` for a document now at `current` (nil: none), or a
    /// 412 when the conditions already fail. The store checks it again as it writes, so a write racing this
    /// one is a conflict (412) too, never a lost update.
    func expectedRevision(current: Int?) throws(HangarHTTPError) -> Int? {
        if let ifMatch {
            guard ifMatch.matches(current), let current else { throw failed(current) }
            return current
        }
        if let ifNoneMatch {
            guard !ifNoneMatch.matches(current) else { throw failed(current) }
            // If-None-Match: * creates only; a list of revisions not matching leaves the document as it is.
            return ifNoneMatch == .any ? 0 : current ?? 0
        }
        return nil
    }

    /// The one revision `If-Match` names when that is the whole condition (`If-Match: "3"`, no `If-None-Match`):
    /// the store's own check of the expected revision decides then, with no read before the write. (Revision 0,
    /// which no document has, keeps the general path: it must answer 412, not create.)
    var onlyRevision: Int? {
        guard ifNoneMatch == nil, case .revisions(let list) = ifMatch, list.count == 1, list[0] > 0 else { return nil }
        return list[0]
    }

    /// The 412 for a document now at `current` (nil: none), with its revision as ETag.
    func failed(_ current: Int?) -> HangarHTTPError {
        var error = HangarHTTPError(
            .preconditionFailed,
            current.map { "The document is at revision \($0)" } ?? "There is no such document")
        if let current { error.headers[.eTag] = RevisionTag.header(current) }
        return error
    }
}
