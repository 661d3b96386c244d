import Hangar
import HangarSync
import Hummingbird
import PropertyList

extension DocumentRoutes {
    /// `GET /C?limit=&offset=[&class=TAG]`: a page of keys, sorted, as `{keys, offset, limit, nextOffset?}`
    /// (`nextOffset` only when more keys follow); with `index=NAME`, an index query (`queryIndex`).
    func listKeys(_ request: Request) async throws -> Response {
        if let index = request.uri.queryParameters.get("index") { return try await queryIndex(request, index: index) }
        let formats = try Answers.formats(request)
        let query = request.uri.queryParameters
        let limit =
            try integer(query.get("limit"), name: "limit", in: 1...options.maximumPageSize)
            ?? options.defaultPageSize
        let offset = try integer(query.get("offset"), name: "offset", in: 0...Int.max) ?? 0
        let filter = try KeyFilter(query: query)
        let user = try user()
        let read = try await store.read(after: try TokenHeader.token(request)) { reader in
            try await filter.page(of: name, in: reader, limit: limit, offset: offset, user: user)
        }
        let page = read.value
        var answer: PropertyList.Dictionary = [
            "keys": .array(page.keys.map { .string($0) }), "offset": .integer(.init(offset)),
            "limit": .integer(.init(limit)),
        ]
        if page.more { answer["nextOffset"] = .integer(.init(offset + page.keys.count)) }
        return TokenHeader.stamped(try Answers.respond(.dictionary(answer), in: formats), read.token)
    }

    /// `GET /C/{key}`: the document (migrated to the current major when older) with its revision as ETag;
    /// 304 when `If-None-Match` names that revision; 404 when there is none; 409 for a stored newer major. A
    /// binary answer of a document at the current version is its stored bytes, sent as they are.
    func getDocument(_ request: Request, key: String) async throws -> Response {
        let formats = try Answers.formats(request)
        let read = try await visibleDocument(key, after: try TokenHeader.token(request))
        guard let stored = read.value else {
            throw HangarHTTPError(.notFound, "\(name)/\(key): no such document")
        }
        if formats.first == .binary, let bytes = bodies.storedBinary(stored) {
            let answer =
                notModified(request, revision: stored.revision)
                ?? Answers.respond(bytes: bytes, in: .binary, revision: stored.revision)
            return TokenHeader.stamped(answer, read.token)
        }
        let envelope = try bodies.envelope(of: stored)
        let answer =
            try notModified(request, revision: stored.revision)
            ?? Answers.respond(envelope, in: formats, revision: stored.revision)
        return TokenHeader.stamped(answer, read.token)
    }

    /// 304 with the ETag when the request's `If-None-Match` names `revision`.
    private func notModified(_ request: Request, revision: Int) -> Response? {
        guard let condition = RevisionTag.condition(request.headers[.ifNoneMatch]), condition.matches(revision) else {
            return nil
        }
        return Response(status: .notModified, headers: [.eTag: RevisionTag.header(revision)])
    }

    /// `PUT /C/{key}`: saves the body (any readable version, migrated on the way in) under `key`; 201 when
    /// it created the document, else 200, with the new revision as ETag. `If-Match` / `If-None-Match` decide
    /// the expected revision (412 when it is not met). With `Idempotency-Key`, a retry by the same user gets the
    /// original answer (status and ETag) and makes no second revision (remembered in the save's transaction,
    /// ``HangarSync/SyncWriteAnswers``); the key used for another document is 422. Another user's document is
    /// 404, never overwritten.
    func putDocument(_ request: Request, key: String) async throws -> Response {
        guard let bodyFormat = BodyFormat.forContentType(request.headers[.contentType]) else {
            throw HangarHTTPError(
                .unsupportedMediaType,
                "Content-Type \(request.headers[.contentType] ?? "(none)") is not read: use application/json, "
                    + "application/x-plist+xml or application/x-plist")
        }
        let bytes = try await body(of: request)
        let incoming = try bodies.read(bytes, as: bodyFormat, key: key)
        let preconditions = WritePreconditions(request)
        let user = try user()
        let idempotencyKey = try Self.idempotencyKey(request)
        if let expected = preconditions.onlyRevision, user == nil, idempotencyKey == nil {
            return try await putAsSingleWrite(
                key: key, with: incoming, expectedRevision: expected, preconditions: preconditions)
        }
        let written: Tokened<(Int, Bool)>
        do {
            written = try await save(incoming, key: key, preconditions: preconditions, user: user, idempotencyKey)
        } catch let error where idempotencyKey != nil && Self.isPreconditionFailure(error) {
            // A retry sent while its first attempt was still in flight (an answer lost to a killed server, say)
            // can read before that attempt commits and meet its revision as a conflict. Once more, the first
            // attempt's remembered answer is visible and is the answer; with none, the 412 stands.
            written = try await save(incoming, key: key, preconditions: preconditions, user: user, idempotencyKey)
        }
        let (revision, created) = written.value
        var headers: HTTPFields = [.eTag: RevisionTag.header(revision), TokenHeader.name: written.token.description]
        if created { headers[.location] = location(of: key) }
        return Response(status: created ? .created : .ok, headers: headers)
    }

    /// One transaction of ``putDocument(_:key:)``: the remembered answer of `idempotencyKey` if there is one, else
    /// the save (with the answer remembered in the same transaction). Returns the revision and whether it created.
    private func save(
        _ incoming: IncomingDocument, key: String, preconditions: WritePreconditions, user: String?,
        _ idempotencyKey: String?
    ) async throws -> Tokened<(Int, Bool)> {
        try await store.writeReturningToken { writer in
            if let idempotencyKey,
                let answer = try await SyncWriteAnswers.answer(for: idempotencyKey, user: user, writer)
            {
                guard answer.collection.hasSameBytes(as: name), answer.key.hasSameBytes(as: key) else {
                    throw HangarHTTPError(.unprocessableContent, "This Idempotency-Key was used for another document")
                }
                return (answer.revision, answer.created)
            }
            guard try await SyncOwnership.admit(key, in: name, for: user, writer) else {
                throw HangarHTTPError(.notFound, "\(name)/\(key): no such document")
            }
            let current = try await writer.document(in: name, key: key)
            try bodies.checkWritable(current)
            let expected = try preconditions.expectedRevision(current: current?.revision)
            let revision = try await bodies.save(
                incoming, key: key, expectedRevision: expected, to: InTransaction(writer: writer))
            if let idempotencyKey {
                let answer = SyncWriteAnswers.Answer(
                    collection: name, key: key, revision: revision, created: current == nil)
                try await SyncWriteAnswers.remember(answer, for: idempotencyKey, user: user, writer)
            }
            return (revision, current == nil)
        }
    }

    /// Whether `error` is a failed precondition (412): the request's own check, or the store's conflict.
    private static func isPreconditionFailure(_ error: any Error) -> Bool {
        if let error = error as? HangarHTTPError { return error.status == .preconditionFailed }
        return (error as? HangarError)?.code == .conflict
    }

    /// The `Idempotency-Key` of a request, if any; 400 when it is empty, longer than 255 bytes or holds NUL.
    static func idempotencyKey(_ request: Request) throws(HangarHTTPError) -> String? {
        guard let value = request.headers.first(where: { $0.name.canonicalName == "idempotency-key" })?.value else {
            return nil
        }
        guard SyncWriteAnswers.isValid(value) else {
            throw HangarHTTPError(.badRequest, "Idempotency-Key must be 1 to 255 bytes of text")
        }
        return value
    }

    /// The document `key` if the request's user may see it (everyone in the shared scope, where it is read in the
    /// engine's cheapest way for one document: on PostgreSQL one statement, without `BEGIN` and `COMMIT`).
    func visibleDocument(_ key: String, after token: CommitToken?) async throws -> Tokened<StoredDocument?> {
        guard let user = try user() else { return try await store.document(in: name, key: key, after: token) }
        return try await store.read(after: token) { reader -> StoredDocument? in
            guard try await SyncOwnership.isVisible(key, in: name, to: user, reader) else { return nil }
            return try await reader.document(in: name, key: key)
        }
    }

    /// A PUT with `If-Match: "n"` alone (in the open scope, without `Idempotency-Key`): one write whose expected revision is `n`, with no read before it (the
    /// store checks the revision as it writes, and refuses a stored newer major); 200 with the new revision, or
    /// 412 with the current one.
    private func putAsSingleWrite(
        key: String, with incoming: IncomingDocument, expectedRevision: Int, preconditions: WritePreconditions
    ) async throws -> Response {
        let saving = AsSingleWrite(store: store)
        let revision: Int
        do {
            revision = try await bodies.save(incoming, key: key, expectedRevision: expectedRevision, to: saving)
        } catch let error as HangarError where error.code == .conflict {
            throw preconditions.failed(try await store.document(in: name, key: key)?.revision)
        }
        var headers: HTTPFields = [.eTag: RevisionTag.header(revision)]
        if let token = saving.token { headers[TokenHeader.name] = token.description }
        return Response(status: .ok, headers: headers)
    }

    /// `DELETE /C/{key}`: 204, or 404 when there is none; `If-Match` as for PUT; a stored newer major is 409.
    func deleteDocument(_ request: Request, key: String) async throws -> Response {
        let preconditions = WritePreconditions(request)
        let user = try user()
        let written = try await store.writeReturningToken { writer in
            guard try await SyncOwnership.isVisible(key, in: name, to: user, writer) else { return false }
            let current = try await writer.document(in: name, key: key)
            try bodies.checkWritable(current)
            let expected = try preconditions.expectedRevision(current: current?.revision)
            guard current != nil else { return false }
            return try await writer.delete(key: key, in: name, expectedRevision: expected)
        }
        guard written.value else { throw HangarHTTPError(.notFound, "\(name)/\(key): no such document") }
        return Response(status: .noContent, headers: [TokenHeader.name: written.token.description])
    }

    /// `GET /C/{key}/history`: `{key, revisions: [{revision, majorVersion, minorVersion, class?, savedAt,
    /// current}]}`, oldest first; the current revision (if any) as ETag.
    func history(_ request: Request, key: String) async throws -> Response {
        let formats = try Answers.formats(request)
        let user = try user()
        let read = try await store.read(after: try TokenHeader.token(request)) { reader -> [RevisionInfo] in
            guard try await SyncOwnership.isVisible(key, in: name, to: user, reader) else { return [] }
            return try await reader.history(in: name, key: key)
        }
        let revisions = read.value
        guard !revisions.isEmpty else { throw HangarHTTPError(.notFound, "\(name)/\(key): no such document") }
        let list: [PropertyList] = revisions.map { info in
            var entry: PropertyList.Dictionary = [
                "revision": .integer(.init(info.revision)), "majorVersion": .integer(.init(info.version.major)),
                "minorVersion": .integer(.init(info.version.minor)),
                "savedAt": .date(info.savedAt.timeIntervalSinceReferenceDate), "current": .boolean(info.isCurrent),
            ]
            if let tag = info.classTag { entry["class"] = .string(tag) }
            return .dictionary(entry)
        }
        let current = revisions.last(where: \.isCurrent)?.revision
        let answer = try Answers.respond(
            ["key": .string(key), "revisions": .array(list)], in: formats, revision: current)
        return TokenHeader.stamped(answer, read.token)
    }

    /// `GET /C/{key}/revisions/{n}`: a kept revision, as `GET /C/{key}` answers it, with ETag `"n"`.
    func revision(_ request: Request, key: String, revision: Int) async throws -> Response {
        let formats = try Answers.formats(request)
        let user = try user()
        let read = try await store.read(after: try TokenHeader.token(request)) { reader -> StoredDocument? in
            guard try await SyncOwnership.isVisible(key, in: name, to: user, reader) else { return nil }
            return try await reader.document(in: name, key: key, revision: revision)
        }
        guard let stored = read.value else {
            throw HangarHTTPError(.notFound, "\(name)/\(key): revision \(revision) is not kept")
        }
        let answer = try Answers.respond(try bodies.envelope(of: stored), in: formats, revision: stored.revision)
        return TokenHeader.stamped(answer, read.token)
    }

    /// `POST /C/{key}/revisions/{n}/restore`: saves kept revision `n` again as a new revision (checked by the
    /// collection's declared model, as every envelope is); 200 with the new revision as ETag. `If-Match` as for
    /// PUT; 404 when the document or the revision is not there (or is another user's); 409 over a stored newer
    /// major.
    func restore(_ request: Request, key: String, revision: Int) async throws -> Response {
        let preconditions = WritePreconditions(request)
        let user = try user()
        let written = try await store.writeReturningToken { writer -> Int? in
            guard try await SyncOwnership.isVisible(key, in: name, to: user, writer),
                try await writer.document(in: name, key: key, revision: revision) != nil
            else { return nil }
            let current = try await writer.document(in: name, key: key)
            try bodies.checkWritable(current)
            _ = try preconditions.expectedRevision(current: current?.revision)
            return try await writer.restore(key: key, in: name, revision: revision)
        }
        guard let restored = written.value else {
            throw HangarHTTPError(.notFound, "\(name)/\(key): revision \(revision) is not kept")
        }
        return Response(
            status: .ok, headers: [.eTag: RevisionTag.header(restored), TokenHeader.name: written.token.description])
    }
}

/// What an offset list (`GET /C` without `index=`, which `DocumentRoutes+IndexQuery.swift` answers) lists: every
/// key, or those of a class tag.
struct KeyFilter: Sendable {
    enum Kind: Sendable {
        case all
        case classTag(String)
    }
    let kind: Kind

    /// The filter `class=TAG` asks for, or none; 400 for `value=` without `index=`.
    init(query: Parameters) throws(HangarHTTPError) {
        switch (query.get("class"), query.get("value")) {
        case (nil, nil): kind = .all
        case (let tag?, nil): kind = .classTag(tag)
        default:
            throw HangarHTTPError(.badRequest, "Filter by class=TAG, or by index=NAME&value=V, one at a time")
        }
    }

    /// At most `limit` keys after `offset`, and whether more follow; with a `user`, only the keys they own
    /// (``HangarSync/SyncOwnership``).
    func page(of collection: String, in reader: some DocumentReader, limit: Int, offset: Int, user: String? = nil)
        async throws -> (keys: [String], more: Bool)
    {
        var keys: [String]
        switch kind {
        case .all where user == nil:
            keys = try await reader.keys(in: collection, order: .ascending, limit: limit + 1, offset: offset)
            return (Array(keys.prefix(limit)), keys.count > limit)
        case .all:
            // One page of the owners index; a store that has not built it (opened read-only) checks key by key.
            if let user,
                let page = try await reader.ownedKeys(in: collection, owner: user, limit: limit, offset: offset)
            {
                return page
            }
            keys = try await reader.keys(in: collection, order: .ascending, limit: nil, offset: 0)
        case .classTag(let tag): keys = try await reader.keys(in: collection, classTag: tag)
        }
        if user != nil {
            var owned: [String] = []
            for key in keys {
                if try await SyncOwnership.isVisible(key, in: collection, to: user, reader) { owned.append(key) }
            }
            keys = owned
        }
        let page = keys.dropFirst(offset).prefix(limit)
        return (Array(page), offset + page.count < keys.count)
    }
}
