import Hangar
import HangarSync
import Hummingbird
import PilotModels
import PropertyList

extension PilotsAPI {
    /// `GET /pilots?limit=&offset=[&class=TAG | &index=NAME&value=V]`: a page of keys, sorted, as
    /// `{keys, offset, limit, nextOffset?}` (`nextOffset` only when more keys follow).
    func listKeys(_ request: Request) async throws -> Response {
        let format = try responseFormat(request)
        let query = request.uri.queryParameters
        let limit =
            try integer(query.get("limit"), name: "limit", in: 1...options.maximumPageSize)
            ?? options.defaultPageSize
        let offset = try integer(query.get("offset"), name: "offset", in: 0...Int.max) ?? 0
        let filter = try KeyFilter(query: query, declared: store.configuration.options(for: collection).indexes)
        let user = PilotsUser.current
        let page = try await store.read { reader in
            try await filter.page(of: collection, in: reader, limit: limit, offset: offset, user: user)
        }
        var answer: PropertyList.Dictionary = [
            "keys": .array(page.keys.map { .string($0) }), "offset": .integer(.init(offset)),
            "limit": .integer(.init(limit)),
        ]
        if page.more { answer["nextOffset"] = .integer(.init(offset + page.keys.count)) }
        return try respond(.dictionary(answer), in: format)
    }

    /// `GET /pilots/{key}`: the document (migrated to the current major when older) with its revision as ETag;
    /// 304 when `If-None-Match` names that revision; 404 when there is none; 409 for a stored newer major.
    func getDocument(_ request: Request, key: String) async throws -> Response {
        let format = try responseFormat(request)
        guard let stored = try await visibleDocument(key) else {
            throw APIError(.notFound, "\(collection)/\(key): no such document")
        }
        let envelope = try bodies.envelope(of: stored)
        if let condition = RevisionTag.condition(request.headers[.ifNoneMatch]), condition.matches(stored.revision) {
            return Response(status: .notModified, headers: [.eTag: RevisionTag.header(stored.revision)])
        }
        return try respond(envelope, in: format, revision: stored.revision)
    }

    /// `PUT /pilots/{key}`: saves the body (any readable version, migrated on the way in) under `key`; 201 when
    /// it created the document, else 200, with the new revision as ETag. `If-Match` / `If-None-Match` decide
    /// the expected revision (412 when it is not met). With `Idempotency-Key`, a retry by the same user gets the
    /// original answer (status and ETag) and makes no second revision (remembered in the save's transaction,
    /// ``HangarSync/SyncWriteAnswers``); the key used for another document is 422. Another user's document is
    /// 404, never overwritten.
    func putDocument(_ request: Request, key: String) async throws -> Response {
        guard let bodyFormat = BodyFormat.forContentType(request.headers[.contentType]) else {
            throw APIError(
                .unsupportedMediaType,
                "Content-Type \(request.headers[.contentType] ?? "(none)") is not read: use application/json, "
                    + "application/x-plist+xml or application/x-plist")
        }
        let bytes = try await body(of: request)
        let incoming = try bodies.read(bytes, as: bodyFormat, key: key)
        let preconditions = WritePreconditions(request)
        let user = PilotsUser.current
        let idempotencyKey = try Self.idempotencyKey(request)
        if let expected = preconditions.onlyRevision, user == nil, idempotencyKey == nil {
            return try await replace(key: key, with: incoming, expectedRevision: expected, preconditions: preconditions)
        }
        let (revision, created) = try await store.write { writer in
            if let idempotencyKey,
                let answer = try await SyncWriteAnswers.answer(for: idempotencyKey, user: user, writer)
            {
                guard answer.collection == collection, answer.key == key else {
                    throw APIError(.unprocessableContent, "This Idempotency-Key was used for another document")
                }
                return (answer.revision, answer.created)
            }
            guard try await SyncOwnership.admit(key, in: collection, for: user, writer) else {
                throw APIError(.notFound, "\(collection)/\(key): no such document")
            }
            let current = try await writer.document(in: collection, key: key)
            try bodies.checkWritable(current)
            let expected = try preconditions.expectedRevision(current: current?.revision)
            let revision = try await save(incoming, key: key, expectedRevision: expected, with: writer)
            if let idempotencyKey {
                let answer = SyncWriteAnswers.Answer(
                    collection: collection, key: key, revision: revision, created: current == nil)
                try await SyncWriteAnswers.remember(answer, for: idempotencyKey, user: user, writer)
            }
            return (revision, current == nil)
        }
        var headers: HTTPFields = [.eTag: RevisionTag.header(revision)]
        if created { headers[.location] = "/\(collection)/\(key)" }
        return Response(status: created ? .created : .ok, headers: headers)
    }

    /// The `Idempotency-Key` of a request, if any; 400 when it is empty, longer than 255 bytes or holds NUL.
    static func idempotencyKey(_ request: Request) throws(APIError) -> String? {
        guard let value = request.headers.first(where: { $0.name.canonicalName == "idempotency-key" })?.value else {
            return nil
        }
        guard SyncWriteAnswers.isValid(value) else {
            throw APIError(.badRequest, "Idempotency-Key must be 1 to 255 bytes of text")
        }
        return value
    }

    /// The document `key` if the request's user may see it (``PilotsUser/current``; everyone in the open scope).
    func visibleDocument(_ key: String) async throws -> StoredDocument? {
        let user = PilotsUser.current
        return try await store.read { reader -> StoredDocument? in
            guard try await SyncOwnership.isVisible(key, in: collection, to: user, reader) else { return nil }
            return try await reader.document(in: collection, key: key)
        }
    }

    /// Saves a PUT's body under `key`: a newer minor's envelope as it came (its unknown keys kept), else the model.
    private func save(
        _ incoming: IncomingPilot, key: String, expectedRevision: Int?, with writer: some DocumentWriter
    ) async throws(HangarError) -> Int {
        if let envelope = incoming.newerMinorEnvelope {
            try await writer.save(envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
        } else {
            try await writer.save(incoming.pilot, key: key, in: collection, expectedRevision: expectedRevision)
        }
    }

    /// A PUT with `If-Match: "n"` alone (in the open scope, without `Idempotency-Key`): one write whose expected revision is `n`, with no read before it (the
    /// store checks the revision as it writes, and refuses a stored newer major); 200 with the new revision, or
    /// 412 with the current one.
    private func replace(
        key: String, with incoming: IncomingPilot, expectedRevision: Int, preconditions: WritePreconditions
    ) async throws -> Response {
        let revision: Int
        do {
            revision = try await store.write { writer in
                try await save(incoming, key: key, expectedRevision: expectedRevision, with: writer)
            }
        } catch let error as HangarError where error.code == .conflict {
            throw preconditions.failed(try await store.document(in: collection, key: key)?.revision)
        }
        return Response(status: .ok, headers: [.eTag: RevisionTag.header(revision)])
    }

    /// `DELETE /pilots/{key}`: 204, or 404 when there is none; `If-Match` as for PUT; a stored newer major is 409.
    func deleteDocument(_ request: Request, key: String) async throws -> Response {
        let preconditions = WritePreconditions(request)
        let user = PilotsUser.current
        let deleted = try await store.write { writer in
            guard try await SyncOwnership.isVisible(key, in: collection, to: user, writer) else { return false }
            let current = try await writer.document(in: collection, key: key)
            try bodies.checkWritable(current)
            let expected = try preconditions.expectedRevision(current: current?.revision)
            guard current != nil else { return false }
            return try await writer.delete(key: key, in: collection, expectedRevision: expected)
        }
        guard deleted else { throw APIError(.notFound, "\(collection)/\(key): no such document") }
        return Response(status: .noContent)
    }

    /// `GET /pilots/{key}/history`: `{key, revisions: [{revision, majorVersion, minorVersion, class?, savedAt,
    /// current}]}`, oldest first; the current revision (if any) as ETag.
    func history(_ request: Request, key: String) async throws -> Response {
        let format = try responseFormat(request)
        let user = PilotsUser.current
        let revisions = try await store.read { reader -> [RevisionInfo] in
            guard try await SyncOwnership.isVisible(key, in: collection, to: user, reader) else { return [] }
            return try await reader.history(in: collection, key: key)
        }
        guard !revisions.isEmpty else { throw APIError(.notFound, "\(collection)/\(key): no such document") }
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
        return try respond(["key": .string(key), "revisions": .array(list)], in: format, revision: current)
    }

    /// `GET /pilots/{key}/revisions/{n}`: a kept revision, as `GET /pilots/{key}` answers it, with ETag `"n"`.
    func revision(_ request: Request, key: String, revision: Int) async throws -> Response {
        let format = try responseFormat(request)
        let user = PilotsUser.current
        let stored = try await store.read { reader -> StoredDocument? in
            guard try await SyncOwnership.isVisible(key, in: collection, to: user, reader) else { return nil }
            return try await reader.document(in: collection, key: key, revision: revision)
        }
        guard let stored else {
            throw APIError(.notFound, "\(collection)/\(key): revision \(revision) is not kept")
        }
        return try respond(try bodies.envelope(of: stored), in: format, revision: stored.revision)
    }

    /// The request body, at most ``PilotsAPIOptions/maximumBodySize`` bytes (413 beyond).
    func body(of request: Request) async throws(APIError) -> [UInt8] {
        let limit = options.maximumBodySize
        let tooLarge = APIError(.contentTooLarge, "The body is larger than \(limit) bytes")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge
        } catch {
            throw APIError(.badRequest, "The body could not be read: \(error)")
        }
    }

    /// An integer query parameter in `range`; `nil` when absent, 400 otherwise.
    func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError(.badRequest, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// What `GET /pilots` lists: every key, or those of a class tag, or those an index maps a value to.
struct KeyFilter: Sendable {
    enum Kind: Sendable {
        case all
        case classTag(String)
        case index(String, value: String)
    }
    let kind: Kind

    /// The filter `class=TAG` or `index=NAME&value=V` asks for (one at a time); 400 for an undeclared index.
    init(query: Parameters, declared: [IndexDefinition]) throws(APIError) {
        let classTag = query.get("class")
        let index = query.get("index")
        let value = query.get("value")
        switch (classTag, index, value) {
        case (nil, nil, nil): kind = .all
        case (let tag?, nil, nil): kind = .classTag(tag)
        case (nil, let index?, let value?):
            guard declared.contains(where: { $0.name == index }) else {
                let names = declared.map(\.name).sorted().joined(separator: ", ")
                throw APIError(.badRequest, "No index \(index.debugDescription); the indexes are \(names)")
            }
            kind = .index(index, value: value)
        default:
            throw APIError(.badRequest, "Filter by class=TAG or by index=NAME&value=V, one at a time")
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
        case .all: keys = try await reader.keys(in: collection, order: .ascending, limit: nil, offset: 0)
        case .classTag(let tag): keys = try await reader.keys(in: collection, classTag: tag)
        case .index(let index, let value):
            keys = try await reader.keys(in: collection, index: index, equalTo: .string(value))
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
