import Foundation
import Hangar
import PropertyList

extension SyncReplica {
    /// A mutation prepared for sending, and the local revision it was made from.
    struct Prepared: Sendable {
        let mutation: SyncMutation
        let localRevision: Int
    }

    /// Pushes every pending change of `collection`, resolves the conflicts the server answers, and pushes the
    /// resolutions (a few rounds at most: a resolution that conflicts again waits for the next pass).
    func pushPending(_ collection: String, into report: inout SyncReport) async throws {
        for _ in 0..<3 {
            let (clientID, prepared) = try await prepare(collection)
            guard !prepared.isEmpty else { return }
            var conflicted = false
            var start = 0
            while start < prepared.count {
                let slice = Array(prepared[start..<batchEnd(from: start, of: prepared)])
                start += slice.count
                let answer = try await transport.push(
                    SyncPush(clientID: clientID, mutations: slice.map(\.mutation)), to: collection)
                let outcomes = answer.outcomes
                guard outcomes.count == slice.count else {
                    throw SyncError(.malformedAnswer, "The push answer does not have one result per mutation")
                }
                try await record(
                    Array(zip(slice, outcomes)), acknowledged: (answer.through, answer.mark), collection,
                    into: &report)
                conflicted = conflicted || outcomes.contains { if case .conflict = $0 { true } else { false } }
            }
            if !conflicted { return }
        }
    }

    /// Where the push request that starts at `start` ends: at most ``pushBatchSize`` mutations and
    /// ``pushBatchBytes`` bytes of documents, and always at least one mutation.
    func batchEnd(from start: Int, of prepared: [Prepared]) -> Int {
        var end = start
        var bytes = 0
        while end < prepared.count {
            guard end == start || end - start < pushBatchSize else { break }
            let mutation = prepared[end].mutation
            // The document, its key, and a little for the rest of the mutation's entry in the request.
            bytes += (mutation.body?.count ?? 0) + mutation.key.utf8.count + 64
            guard end == start || bytes <= pushBatchBytes else { break }
            end += 1
        }
        return end
    }

    /// Finds the pending local changes and gives each a mutation id (kept while unanswered, a new one when the
    /// document changed again), in one local transaction, before anything is sent.
    ///
    /// Only keys that may have become pending are looked at: those the local change feed shows changed (in the
    /// collection or in its sync states) since the last look, and those pending then (``ReplicaRecords/scan``).
    /// Whether a key needs a push depends only on its document and its state, so nothing else can have become
    /// pending. Without a record, or when the local feed no longer holds the changes since, every key is looked at.
    func prepare(_ collection: String) async throws -> (clientID: String, [Prepared]) {
        try await store.write { writer in
            var client = try await ReplicaRecords.client(writer) ?? (UUID().uuidString, 1)
            var prepared: [Prepared] = []
            let keys = try await Self.candidates(collection, writer)
            for key in keys {
                let local = try await writer.document(in: collection, key: key)
                let now = local?.revision ?? 0
                var state = try await ReplicaRecords.state(collection, key, writer) ?? .clean
                guard state.needsPush(localRevision: now) else { continue }
                if state.pending.isEmpty || state.pendingFor != now {
                    state.pending.append(client.next)
                    state.pendingFor = now
                    client.next += 1
                    try await ReplicaRecords.setState(state, collection, key, writer)
                }
                let mutation = SyncMutation(
                    id: state.pending[state.pending.count - 1], key: key, base: state.base,
                    supersedes: Array(state.pending.dropLast()), body: try local?.plaintextBody())
                prepared.append(Prepared(mutation: mutation, localRevision: now))
            }
            try await ReplicaRecords.setClient(client, writer)
            try await ReplicaRecords.setScan(
                (through: try await writer.lastChangeSequence(), pending: prepared.map(\.mutation.key)), collection,
                writer)
            return (client.id, prepared)
        }
    }

    /// The keys of `collection` that may need a push, each once by its bytes (two keys equal but for Unicode
    /// normalization are two documents), in byte order: see ``prepare(_:)``.
    static func candidates(_ collection: String, _ writer: Store.Writer) async throws -> [String] {
        let states = ReplicaRecords.stateCollection(collection)
        if let scan = try await ReplicaRecords.scan(collection, writer),
            scan.through <= (try await writer.lastChangeSequence())
        {
            let changed: Result<[Change], HangarError>
            do {
                changed = .success(
                    try await writer.changes(since: scan.through, in: collection, limit: nil)
                        + writer.changes(since: scan.through, in: states, limit: nil))
            } catch {
                changed = .failure(error)
            }
            switch changed {
            case .success(let changes): return distinctKeys(scan.pending + changes.map(\.key))
            case .failure(let error) where error.code == .changesTooOld: break  // Pruned since: look at every key.
            case .failure(let error): throw error
            }
        }
        return distinctKeys(try await writer.keys(in: collection) + writer.keys(in: states))
    }

    /// `keys` without repeats (by their bytes), in byte order.
    static func distinctKeys(_ keys: [String]) -> [String] {
        Set(keys.map { ExactString($0) }).sorted().map(\.string)
    }

    /// Records the server's answers: applied ones become the new base, conflicts go to the resolver.
    func record(
        _ answers: [(Prepared, SyncOutcome)], acknowledged: (through: Int, mark: String), _ collection: String,
        into report: inout SyncReport
    ) async throws {
        var conflicts: [(Prepared, SyncItem, [UInt8]?)] = []
        try await store.write { writer in
            if var checkpoint = try await ReplicaRecords.checkpoint(collection, writer),
                acknowledged.through > checkpoint.through
            {
                checkpoint.acknowledged = acknowledged.through
                checkpoint.acknowledgedMark = acknowledged.mark
                try await ReplicaRecords.setCheckpoint(checkpoint, collection, writer)
            }
            for (prepared, outcome) in answers {
                guard case .applied(let revision, let current) = outcome else { continue }
                let key = prepared.mutation.key
                guard var state = try await ReplicaRecords.state(collection, key, writer) else { continue }
                state.base = prepared.mutation.body == nil ? 0 : revision
                state.pending.removeAll { $0 <= prepared.mutation.id }
                state.local = prepared.localRevision
                let local = try await writer.document(in: collection, key: key)
                if let current, (local?.revision ?? 0) == prepared.localRevision {
                    // The server moved on from this (retried) mutation while it was pending: take its document.
                    state.local = try await Self.write(current.body, key: key, collection, over: local, writer)
                    state.base = current.body == nil ? 0 : current.revision
                }
                try await ReplicaRecords.setState(state, collection, key, writer)
            }
        }
        for (prepared, outcome) in answers {
            switch outcome {
            case .applied: report.pushed += 1
            case .rejected(let code, let reason):
                report.rejected[ExactString(prepared.mutation.key)] = "\(code): \(reason)"
            case .conflict(let theirs, let base):
                report.conflicts += 1
                conflicts.append((prepared, theirs, base))
            }
        }
        for (prepared, theirs, base) in conflicts {
            try await resolve(prepared, theirs: theirs, base: base, collection)
        }
    }

    /// Asks the resolver about one conflict and applies its decision, unless the local document changed since the
    /// push was prepared (then the next pass pushes that change, and meets the conflict again).
    func resolve(_ prepared: Prepared, theirs: SyncItem, base: [UInt8]?, _ collection: String) async throws {
        let key = prepared.mutation.key
        let conflict = SyncConflict(
            collection: collection, key: key, base: try base.map { try Self.decode($0, collection, key) },
            baseRevision: prepared.mutation.base,
            mine: try prepared.mutation.body.map { try Self.decode($0, collection, key) },
            theirs: try theirs.body.map { try Self.decode($0, collection, key) }, theirsRevision: theirs.revision)
        let resolution = try await resolver.resolve(conflict)
        try await store.write { writer in
            let local = try await writer.document(in: collection, key: key)
            guard (local?.revision ?? 0) == prepared.localRevision else { return }
            var state = try await ReplicaRecords.state(collection, key, writer) ?? .clean
            state.pending = []
            state.pendingFor = 0
            state.base = theirs.body == nil ? 0 : theirs.revision
            switch resolution {
            case .theirs(let keepingMine):
                if keepingMine {
                    var copy: PropertyList.Dictionary = [
                        "majorVersion": 1, "minorVersion": 0, "theirsRevision": .integer(.init(theirs.revision)),
                    ]
                    if let mine = prepared.mutation.body { copy["mine"] = .data(mine) }
                    try await writer.save(
                        envelope: .dictionary(copy), key: key, in: ReplicaRecords.conflictCollection(collection))
                }
                state.local = try await Self.write(theirs.body, key: key, collection, over: local, writer)
            case .mine:
                state.local = -1
            case .merged(let envelope):
                _ = try await writer.save(
                    envelope: envelope, key: key, in: collection, expectedRevision: local?.revision ?? 0,
                    overwritingNewerMajor: false)
                state.local = -1
            }
            try await ReplicaRecords.setState(state, collection, key, writer)
        }
    }

    static func decode(_ body: [UInt8], _ collection: String, _ key: String) throws -> PropertyList {
        do {
            return try PropertyList(binary: body)
        } catch {
            throw SyncError(.malformedAnswer, "A body of \(collection)/\(key) is not a property list")
        }
    }
}
