import Foundation
import Hangar
import PropertyList

extension SyncServer {
    /// Applies `push`'s mutations of `collection` in order, each in a write transaction of its own that also
    /// remembers its answer, so each is applied at most once: a mutation already applied gets the answer it got
    /// then. A mutation whose base is not the server's current revision (nor the revision of one of the client's
    /// own unanswered earlier mutations of that key) is a conflict carrying theirs and, when history keeps it,
    /// the base's body. An envelope of an older major than the collection's format is migrated on the way in.
    ///
    /// With a `user`, a mutation of a key another user owns (or of a document nobody owns) is rejected with
    /// code `notFound`, as if there were no such document, and a created document is claimed for `user` in the
    /// same transaction (``SyncOwnership``); `nil`: the open scope.
    ///
    /// Throws only when the store fails (nothing of the failing mutation is written; those before it are, and
    /// their answers are remembered, so the client retries the whole push safely).
    public func push(_ push: SyncPush, to collection: String, user: String? = nil) async throws -> SyncPushAnswer {
        try Self.checkSyncable(collection)
        // By bytes: `"/\u{301}"` is one Character, which `String.contains("/")` would not find.
        guard !push.clientID.isEmpty, !push.clientID.utf8.contains(UInt8(ascii: "/")), !push.clientID.utf8.contains(0)
        else {
            throw SyncError(.invalidRequest, "The client id must be non-empty text without \"/\"")
        }
        // A user's answers are remembered apart from other users' (two users' client ids never meet).
        let client = user.map { "\($0.utf8.count):\($0)|\(push.clientID)" } ?? push.clientID
        var outcomes: [SyncOutcome] = []
        for mutation in push.mutations {
            outcomes.append(try await apply(mutation, of: client, to: collection, user: user))
        }
        let (through, mark) = try await store.read { reader in
            let last = try await reader.lastChangeSequence()
            return (last, try await Self.mark(at: last, reader))
        }
        return SyncPushAnswer(outcomes: outcomes, through: through, mark: mark)
    }

    /// The answer remembered for an applied mutation.
    struct Remembered: Sendable {
        let collection: String
        let key: String
        let revision: Int
    }

    /// Thrown out of a write transaction to roll it back with an answer.
    struct Refusal: Error {
        let outcome: SyncOutcome
    }

    func apply(_ mutation: SyncMutation, of clientID: String, to collection: String, user: String?) async throws
        -> SyncOutcome
    {
        if let limit = maximumDocumentSize, let body = mutation.body, body.count > limit {
            return .rejected(
                code: "contentTooLarge", reason: "\(collection)/\(mutation.key): larger than \(limit) bytes")
        }
        let format = store.configuration.options(for: collection).format
        let envelope: PropertyList?
        do {
            envelope = try mutation.body.map { try Self.incoming($0, format: format, key: mutation.key) }
        } catch let refusal as Refusal {
            return refusal.outcome
        }
        for _ in 1...3 {
            do {
                return try await store.write { writer in
                    guard try await SyncOwnership.admit(mutation.key, in: collection, for: user, writer) else {
                        throw Refusal(
                            outcome: .rejected(
                                code: "notFound", reason: "\(collection)/\(mutation.key): no such document"))
                    }
                    return try await Self.apply(
                        mutation, envelope: envelope, clientID: clientID, collection: collection, format: format,
                        writer)
                }
            } catch let refusal as Refusal {
                return refusal.outcome
            } catch let error as HangarError where error.code == .conflict {
                // Another writer committed between the read and the save: decide again.
                continue
            } catch let error as HangarError where Self.isRefusal(error.code) {
                return .rejected(code: error.code.description, reason: error.description)
            }
        }
        return .rejected(code: "contention", reason: "Other writers kept saving this document; retry later")
    }

    /// The errors that are the mutation's fault: answered as a rejection, never retried as they are.
    static func isRefusal(_ code: HangarError.Code) -> Bool {
        [
            .newerMajor, .invalidDocument, .duplicate, .reservedKey, .invalidName, .notAnEnvelope, .missingVersion,
            .invalidVersion, .unsupportedOldMajor, .migrationFailed, .undecodable,
            // The collection's model refused it (``Hangar/CollectionOptions/model``), as a PUT's would.
            .missingKey, .typeMismatch, .outOfRange, .invalidValue, .unknownClassTag, .disallowedClassTag,
            .unrepresentable,
        ].contains(code)
    }

    /// The envelope a pushed body is stored as: decoded, and migrated to the format's current major when older.
    static func incoming(_ body: [UInt8], format: DocumentFormat?, key: String) throws -> PropertyList {
        let envelope: PropertyList
        do {
            envelope = try PropertyList(binary: body)
        } catch {
            throw Refusal(outcome: .rejected(code: "invalidDocument", reason: "The body is not a binary property list"))
        }
        guard let format else { return envelope }
        let version: DocumentVersion
        do {
            version = try DocumentFormat.envelopeVersion(of: envelope)
        } catch {
            throw Refusal(outcome: .rejected(code: error.code.description, reason: error.message))
        }
        guard version.major < format.current.major else { return envelope }
        do {
            let opened = try format.open(envelope, name: key)
            return format.seal(opened.content, version: format.current)
        } catch {
            throw Refusal(outcome: .rejected(code: error.code.description, reason: error.message))
        }
    }

    static func apply(
        _ mutation: SyncMutation, envelope: PropertyList?, clientID: String, collection: String,
        format: DocumentFormat?, _ writer: Store.Writer
    ) async throws -> SyncOutcome {
        if let remembered = try await remembered(clientID, mutation.id, writer) {
            guard remembered.collection.hasSameBytes(as: collection), remembered.key.hasSameBytes(as: mutation.key)
            else {
                throw Refusal(
                    outcome: .rejected(
                        code: "invalidRequest", reason: "Mutation \(mutation.id) was already used for another key"))
            }
            let current = try await writer.document(in: collection, key: mutation.key)
            let currentBody = try current?.plaintextBody()
            guard (current?.revision ?? 0) != remembered.revision || currentBody != mutation.body else {
                return .applied(revision: remembered.revision)
            }
            // Moved on since (another client's write, made over this one), or stored migrated: say so, with the
            // original answer.
            let lastRevision = current?.revision ?? remembered.revision
            return .applied(
                revision: remembered.revision,
                current: SyncItem(key: mutation.key, revision: lastRevision, body: currentBody))
        }
        let current = try await writer.document(in: collection, key: mutation.key)
        let currentRevision = current?.revision ?? 0
        // The revisions the client's body was made on: its base, and those its own unanswered mutations made.
        var ownBase: Int?
        for earlier in mutation.supersedes.reversed() {
            if let remembered = try await remembered(clientID, earlier, writer),
                remembered.collection.hasSameBytes(as: collection), remembered.key.hasSameBytes(as: mutation.key)
            {
                ownBase = remembered.revision
                break
            }
        }
        if currentRevision != mutation.base && currentRevision != ownBase {
            // The server already holds exactly what the mutation asks for (the same edit made elsewhere, or this
            // one retried after its answer was forgotten): applied, with no new revision and no conflict.
            if try current?.plaintextBody() == mutation.body {
                try await rememberAnswer(
                    revision: currentRevision, of: mutation, by: clientID, in: collection, writer)
                return .applied(revision: currentRevision)
            }
            let base = ownBase ?? mutation.base
            let baseBody =
                base > 0
                ? try await writer.document(in: collection, key: mutation.key, revision: base)?.plaintextBody() : nil
            let theirs = SyncItem(
                key: mutation.key, revision: currentRevision, body: try current?.plaintextBody())
            // Only a bulk upgrade lies between base and current: the edit, migrated on the way in, goes over it.
            guard let baseBody, let currentBody = theirs.body, let format, mutation.body != nil,
                isUpgradeOnly(from: baseBody, to: currentBody, format: format)
            else { return .conflict(theirs: theirs, base: baseBody) }
        }
        let revision: Int
        if let envelope {
            revision = try await writer.save(
                envelope: envelope, key: mutation.key, in: collection, expectedRevision: currentRevision)
        } else {
            _ = try await writer.delete(key: mutation.key, in: collection, expectedRevision: currentRevision)
            revision = 0
        }
        try await rememberAnswer(revision: revision, of: mutation, by: clientID, in: collection, writer)
        // Stored otherwise than sent (migrated on the way in): the client takes the stored bytes.
        if let stored = try await writer.document(in: collection, key: mutation.key), mutation.body != nil,
            try stored.plaintextBody() != mutation.body
        {
            return .applied(
                revision: revision,
                current: SyncItem(key: mutation.key, revision: revision, body: try stored.plaintextBody()))
        }
        return .applied(revision: revision)
    }

    /// Remembers, in the mutation's own transaction, that it was applied with `revision` (0: deleted).
    static func rememberAnswer(
        revision: Int, of mutation: SyncMutation, by clientID: String, in collection: String, _ writer: Store.Writer
    ) async throws {
        let record: PropertyList = [
            "majorVersion": 1, "minorVersion": 0, "collection": .string(collection), "key": .string(mutation.key),
            "revision": .integer(.init(revision)),
        ]
        try await writer.save(
            envelope: record, key: "\(clientID)/\(mutation.id)", in: mutationsCollection, expectedRevision: 0)
    }

    /// Whether `current` is exactly `base` migrated to the format's current version (what a bulk upgrade saves).
    static func isUpgradeOnly(from base: [UInt8], to current: [UInt8], format: DocumentFormat) -> Bool {
        guard let envelope = try? PropertyList(binary: base),
            let version = try? DocumentFormat.envelopeVersion(of: envelope), version.major < format.current.major,
            let opened = try? format.open(envelope),
            let migrated = try? format.seal(opened.content, version: format.current).encoded(as: .binary)
        else { return false }
        return migrated == current
    }

    static func remembered(_ clientID: String, _ id: Int, _ reader: some DocumentReader) async throws -> Remembered? {
        guard let stored = try await reader.document(in: mutationsCollection, key: "\(clientID)/\(id)") else {
            return nil
        }
        let record = try stored.envelope()
        guard let collection = record["collection"]?.stringValue, let key = record["key"]?.stringValue,
            let revision = record["revision"]?.integerValue?.exactly(Int.self)
        else {
            throw HangarError(.invalidDocument, "A remembered sync mutation is malformed", at: .root)
        }
        return Remembered(collection: collection, key: key, revision: revision)
    }
}
