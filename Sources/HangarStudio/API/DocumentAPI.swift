import Foundation
import Hangar
import HangarHummingbird
import Hummingbird
import PropertyList

extension HangarStudio {
    /// `GET api/documents/{C}/{K}[?revision=N]`: the document (or a kept revision) as a typed tree, as XML and as
    /// JSON text, with its facts and its kept revisions.
    func document(_ collection: String, _ key: String, _ request: Request) async throws -> Response {
        let revision = try StudioParameters.integer(request, "revision", in: 1...Int.max)
        let (stored, current, history) = try await store.read { reader in
            let current = try await reader.document(in: collection, key: key)
            let stored =
                if let revision { try await reader.document(in: collection, key: key, revision: revision) } else {
                    current
                }
            return (stored, current, try await reader.history(in: collection, key: key))
        }
        guard let stored else {
            if history.isEmpty { throw HangarHTTPError(.notFound, "No document \(collection)/\(key)") }
            guard let revision else {
                return StudioJSON.response(
                    [
                        "collection": .string(collection), "key": .string(key), "deleted": .boolean(true),
                        "history": .array(history.map(Self.json)),
                    ])
            }
            throw HangarHTTPError(.notFound, "Revision \(revision) of \(collection)/\(key) is not kept")
        }
        let envelope = try stored.envelope()
        var answer: PropertyList.Dictionary = [
            "collection": .string(collection), "key": .string(key), "revision": StudioJSON.int(stored.revision),
            "currentRevision": StudioJSON.int(current?.revision ?? 0), "deleted": .boolean(current == nil),
            "version": StudioJSON.version(stored.version.major, stored.version.minor),
            "class": StudioJSON.optional(stored.classTag), "createdAt": StudioJSON.date(stored.createdAt),
            "updatedAt": StudioJSON.date(stored.updatedAt), "size": StudioJSON.int(stored.body.count),
            "tree": StudioTree.node(envelope), "history": .array(history.map(Self.json)),
            "writable": .boolean(options.allowsWrites),
        ]
        if let format = options(of: collection)?.format {
            answer["declared"] = StudioJSON.version(format.current.major, format.current.minor)
        }
        answer["xml"] = .string(Self.text(envelope, as: .xml))
        do {
            let json = try envelope.encoded(as: .json, options: EncodingOptions(json: .init(prettyPrinted: true)))
            answer["json"] = .string(String(decoding: json, as: UTF8.self))
        } catch {
            answer["jsonError"] = .string("JSON cannot hold this document as it is (\(error)); shown lossily")
            let lossy = EncodingOptions(json: .init(prettyPrinted: true, lossyDatesAndData: true))
            answer["json"] = .string(
                (try? envelope.encoded(as: .json, options: lossy)).map {
                    String(decoding: $0, as: UTF8.self)
                } ?? "")
        }
        return StudioJSON.response(answer)
    }

    /// `GET api/documents/{C}/{K}/diff?a=N&b=M`: what changed from revision N to revision M, by path.
    func diff(_ collection: String, _ key: String, _ request: Request) async throws -> Response {
        guard let a = try StudioParameters.integer(request, "a", in: 1...Int.max),
            let b = try StudioParameters.integer(request, "b", in: 1...Int.max)
        else { throw HangarHTTPError(.badRequest, "diff needs two revisions: a=N&b=M") }
        let (before, after) = try await store.read { reader in
            (
                try await reader.document(in: collection, key: key, revision: a),
                try await reader.document(in: collection, key: key, revision: b)
            )
        }
        guard let before else { throw HangarHTTPError(.notFound, "Revision \(a) of \(collection)/\(key) is not kept") }
        guard let after else { throw HangarHTTPError(.notFound, "Revision \(b) of \(collection)/\(key) is not kept") }
        let (x, y) = (try before.envelope(), try after.envelope())
        return StudioJSON.response([
            "a": StudioJSON.int(a), "b": StudioJSON.int(b), "entries": .array(StudioTree.diff(x, y)),
            "before": StudioTree.node(x), "after": StudioTree.node(y),
        ])
    }

    /// `GET api/documents/{C}/{K}/download?format=binary|xml[&revision=N]`: the envelope as a `.plist` file.
    func download(_ collection: String, _ key: String, _ request: Request) async throws -> Response {
        let revision = try StudioParameters.integer(request, "revision", in: 1...Int.max)
        let xml = request.uri.queryParameters.get("format").map { $0.utf8.elementsEqual("xml".utf8) } ?? false
        let stored = try await store.read { reader in
            if let revision { return try await reader.document(in: collection, key: key, revision: revision) }
            return try await reader.document(in: collection, key: key)
        }
        guard let stored else { throw HangarHTTPError(.notFound, "No document \(collection)/\(key)") }
        let bytes = xml ? try stored.envelope().encoded(as: .xml) : try stored.plaintextBody()
        let name = PathSegment.encoded(key) + ".plist"
        return Response(
            status: .ok,
            headers: [
                .contentType: xml ? "application/x-plist+xml" : "application/x-plist",
                .contentDisposition: "attachment; filename=\"document.plist\"; filename*=UTF-8''\(name)",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `GET api/documents/{C}/{K}`, `…/diff`, `…/download`.
    func read(_ address: DocumentAddress, _ request: Request) async throws -> Response {
        let (collection, key) = (address.collection, address.key)
        switch address.action {
        case "": return try await document(collection, key, request)
        case "diff": return try await diff(collection, key, request)
        case "download": return try await download(collection, key, request)
        default: throw HangarHTTPError(.notFound, "No such studio request: GET …/\(address.action)")
        }
    }

    /// `POST api/documents/{C}/{K}/restore?revision=N`, `…/delete?expected=N`, `…/save?expected=N` (the body: the
    /// envelope as XML): every change through the store's own rules (a new revision, the expected revision, a
    /// newer major refused).
    ///
    /// The one status that differs from the document routes': a stale `expected` is 409, not 412, since it comes
    /// in the query rather than in an `If-Match` header (RFC 9110 §13.1: 412 answers a header's precondition).
    func write(_ address: DocumentAddress, _ request: Request) async throws -> Response {
        guard ["restore", "delete", "save"].contains(address.action) else {
            throw HangarHTTPError(.notFound, "No such studio request: POST …/\(address.action)")
        }
        guard options.allowsWrites else {
            throw HangarHTTPError(.forbidden, "This studio is read-only: start it with --write to change documents")
        }
        try StudioAccess.requireSameOrigin(request)
        do {
            return try await change(address, request)
        } catch let error as HangarError where error.code == .conflict {
            throw HangarHTTPError(.conflict, error.description)
        }
    }

    private func change(_ address: DocumentAddress, _ request: Request) async throws -> Response {
        let (collection, key) = (address.collection, address.key)
        let expected = try StudioParameters.integer(request, "expected", in: 0...Int.max)
        switch address.action {
        case "restore":
            guard let revision = try StudioParameters.integer(request, "revision", in: 1...Int.max) else {
                throw HangarHTTPError(.badRequest, "restore needs revision=N")
            }
            let new = try await store.write { try await $0.restore(key: key, in: collection, revision: revision) }
            return StudioJSON.response(["revision": StudioJSON.int(new)])
        case "delete":
            let deleted = try await store.write {
                try await $0.delete(key: key, in: collection, expectedRevision: expected)
            }
            guard deleted else { throw HangarHTTPError(.notFound, "No document \(collection)/\(key)") }
            return StudioJSON.response(["deleted": .boolean(true)])
        default:
            let body = try await Self.body(of: request)
            let envelope: PropertyList
            do {
                envelope = try PropertyList(xml: body)
            } catch {
                throw HangarHTTPError(.badRequest, "The edited text is not an XML property list: \(error)")
            }
            let new = try await store.write {
                try await $0.save(envelope: envelope, key: key, in: collection, expectedRevision: expected)
            }
            return StudioJSON.response(["revision": StudioJSON.int(new)])
        }
    }

    /// The largest edited document a save reads (413 beyond).
    static var maximumEditSize: Int { 16 << 20 }

    /// A save's body, at most ``maximumEditSize`` bytes, refused (413) as soon as more arrive.
    static func body(of request: Request) async throws(HangarHTTPError) -> [UInt8] {
        let tooLarge = HangarHTTPError(.contentTooLarge, "The body is larger than \(maximumEditSize) bytes")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maximumEditSize {
            throw tooLarge
        }
        do {
            return Array(try await request.body.collect(upTo: maximumEditSize).readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge
        } catch {
            throw HangarHTTPError(.badRequest, "The body could not be read: \(error)")
        }
    }

    static func text(_ value: PropertyList, as format: PropertyListFormat) -> String {
        (try? value.encoded(as: format)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    static func json(_ info: RevisionInfo) -> PropertyList {
        .dictionary([
            "revision": StudioJSON.int(info.revision),
            "version": StudioJSON.version(info.version.major, info.version.minor),
            "class": StudioJSON.optional(info.classTag), "savedAt": StudioJSON.date(info.savedAt),
            "current": .boolean(info.isCurrent),
        ])
    }
}
