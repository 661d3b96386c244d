import Foundation
import Hangar
import PropertyList

/// What the replica keeps beside a synced document, in the local store's collection `_sync/COLLECTION` under
/// the document's key, written in the same transaction as every change the replica makes to the document.
struct DocumentSyncState: Sendable, Hashable {
    /// The server revision the local document was last in step with (0: none).
    var base: Int
    /// The local revision that was in step with ``base`` (0: absent; -1: never, a resolution to push).
    var local: Int
    /// Mutation ids assigned to local changes of this key and not answered yet, oldest first.
    var pending: [Int]
    /// The local revision (0: absent) the newest pending mutation was made from.
    var pendingFor: Int

    static let clean = DocumentSyncState(base: 0, local: 0, pending: [], pendingFor: 0)

    var envelope: PropertyList {
        [
            "majorVersion": 1, "minorVersion": 0, "base": .integer(.init(base)), "local": .integer(.init(local)),
            "pending": .array(pending.map { .integer(.init($0)) }), "pendingFor": .integer(.init(pendingFor)),
        ]
    }

    init(base: Int, local: Int, pending: [Int], pendingFor: Int) {
        self.base = base
        self.local = local
        self.pending = pending
        self.pendingFor = pendingFor
    }

    init(_ envelope: PropertyList) throws(HangarError) {
        guard let base = envelope["base"]?.integerValue?.exactly(Int.self),
            let local = envelope["local"]?.integerValue?.exactly(Int.self),
            let pendingFor = envelope["pendingFor"]?.integerValue?.exactly(Int.self),
            let pending = envelope["pending"]?.arrayValue
        else { throw HangarError(.invalidDocument, "A replica's sync state is malformed", at: .root) }
        self.init(
            base: base, local: local, pending: pending.compactMap { $0.integerValue?.exactly(Int.self) },
            pendingFor: pendingFor)
    }

    /// Whether the local document (at local revision `now`, 0: absent) has changes the server has not answered.
    func needsPush(localRevision now: Int) -> Bool { now != local || !pending.isEmpty }
}

/// The replica's reserved collections and records in the local store.
enum ReplicaRecords {
    static let collection = "_sync"

    static func stateCollection(_ collection: String) -> String { "_sync/\(collection)" }
    static func conflictCollection(_ collection: String) -> String { "_sync.conflicts/\(collection)" }

    static func state(_ collection: String, _ key: String, _ reader: some DocumentReader) async throws
        -> DocumentSyncState?
    {
        guard let stored = try await reader.document(in: stateCollection(collection), key: key) else { return nil }
        return try DocumentSyncState(try stored.envelope())
    }

    static func setState(
        _ state: DocumentSyncState, _ collection: String, _ key: String, _ writer: some DocumentWriter
    ) async throws {
        try await writer.save(envelope: state.envelope, key: key, in: stateCollection(collection))
    }

    static func checkpoint(_ collection: String, _ reader: some DocumentReader) async throws -> SyncCheckpoint? {
        guard let stored = try await reader.document(in: Self.collection, key: "checkpoint/\(collection)") else {
            return nil
        }
        do {
            return try SyncWire.checkpoint(try stored.envelope())
        } catch {
            throw HangarError(.invalidDocument, "The replica's checkpoint is malformed: \(error)", at: .root)
        }
    }

    static func setCheckpoint(_ checkpoint: SyncCheckpoint, _ collection: String, _ writer: some DocumentWriter)
        async throws
    {
        guard case .dictionary(var entries) = SyncWire.encode(checkpoint) else { return }
        entries["majorVersion"] = 1
        entries["minorVersion"] = 0
        try await writer.save(envelope: .dictionary(entries), key: "checkpoint/\(collection)", in: Self.collection)
    }

    /// Where the last look for pending changes of `collection` stood: the local change sequence it had seen and
    /// the keys it found pending (`nil`: no look yet, or the record is unreadable, so every key is looked at).
    static func scan(_ collection: String, _ reader: some DocumentReader) async throws
        -> (through: Int, pending: [String])?
    {
        guard let stored = try await reader.document(in: Self.collection, key: "scan/\(collection)") else { return nil }
        let envelope = try stored.envelope()
        guard let through = envelope["through"]?.integerValue?.exactly(Int.self),
            let pending = envelope["pending"]?.arrayValue?.map({ $0.stringValue })
        else { return nil }
        let keys = pending.compactMap { $0 }
        return keys.count == pending.count ? (through, keys) : nil
    }

    static func setScan(_ scan: (through: Int, pending: [String]), _ collection: String, _ writer: some DocumentWriter)
        async throws
    {
        try await writer.save(
            envelope: [
                "majorVersion": 1, "minorVersion": 0, "through": .integer(.init(scan.through)),
                "pending": .array(scan.pending.map { .string($0) }),
            ], key: "scan/\(collection)", in: Self.collection)
    }

    /// The client's id and its next mutation id, created on first use.
    static func client(_ reader: some DocumentReader) async throws -> (id: String, next: Int)? {
        guard let stored = try await reader.document(in: collection, key: "client") else { return nil }
        let envelope = try stored.envelope()
        guard let id = envelope["clientID"]?.stringValue, let next = envelope["next"]?.integerValue?.exactly(Int.self)
        else { throw HangarError(.invalidDocument, "The replica's client record is malformed", at: .root) }
        return (id, next)
    }

    static func setClient(_ client: (id: String, next: Int), _ writer: some DocumentWriter) async throws {
        try await writer.save(
            envelope: [
                "majorVersion": 1, "minorVersion": 0, "clientID": .string(client.id),
                "next": .integer(.init(client.next)),
            ], key: "client", in: collection)
    }
}
