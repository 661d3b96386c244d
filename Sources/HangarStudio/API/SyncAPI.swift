import Foundation
import Hangar
import HangarSync
import Hummingbird
import PropertyList

extension HangarStudio {
    /// How many pending keys, owners and conflicts the Sync page lists at most (the counts are whole).
    static var syncListLimit: Int { 200 }

    /// `GET api/sync`: Hangar Sync's state as the store keeps it. A server store: its identity and epoch, the
    /// answers kept per client (grouped by the part of their key before the last `/`), the owners of documents.
    /// A device store: its client id, each synced collection's checkpoint, pending documents and conflict copies.
    func syncState() async throws -> Response {
        let answer = try await store.read { reader in
            let names = try await reader.collections()
            var answer: PropertyList.Dictionary = [:]
            if let identity = try await reader.document(in: SyncServer<Store>.identityCollection, key: "identity") {
                answer["server"] = .dictionary(try await Self.serverState(identity, names, reader))
            }
            if let client = try await reader.document(in: "_sync", key: "client") {
                answer["device"] = .dictionary(try await Self.deviceState(client, names, reader))
            }
            return answer
        }
        return StudioJSON.response(answer)
    }

    static func serverState(_ identity: StoredDocument, _ names: [String], _ reader: Store.Reader) async throws
        -> PropertyList.Dictionary
    {
        let envelope = try identity.envelope()
        var state: PropertyList.Dictionary = [
            "storeID": envelope["storeID"] ?? .string("?"), "epoch": envelope["epoch"] ?? .string("?"),
        ]
        var clients: [ExactString: Int] = [:]
        let mutations = SyncServer<Store>.mutationsCollection
        if names.contains(where: { $0.hasSameBytes(as: mutations) }) {
            for key in try await reader.keys(in: mutations) {
                let client = key.lastIndex(of: "/").map { String(key[..<$0]) } ?? key
                clients[ExactString(client), default: 0] += 1
            }
        }
        state["clients"] = .array(
            clients.sorted { $0.key < $1.key }.map {
                .dictionary(["client": .string($0.key.string), "answers": StudioJSON.int($0.value)])
            })
        let owners = SyncOwnership.ownersCollection
        var ownerRows: [PropertyList] = []
        var ownerCount = 0
        if names.contains(where: { $0.hasSameBytes(as: owners) }) {
            ownerCount = try await reader.count(in: owners)
            for key in try await reader.keys(in: owners, order: .ascending, limit: syncListLimit, offset: 0) {
                let user = try await reader.document(in: owners, key: key).flatMap { try $0.envelope()["user"] }
                ownerRows.append(.dictionary(["document": .string(key), "user": user ?? .string("?")]))
            }
        }
        state["owners"] = .array(ownerRows)
        state["ownerCount"] = StudioJSON.int(ownerCount)
        return state
    }

    static func deviceState(_ client: StoredDocument, _ names: [String], _ reader: Store.Reader) async throws
        -> PropertyList.Dictionary
    {
        let record = try client.envelope()
        var collections: [PropertyList] = []
        for name in names where name.utf8.starts(with: "_sync/".utf8) {
            let synced = String(name.dropFirst("_sync/".count))
            var entry: PropertyList.Dictionary = ["collection": .string(synced)]
            if let checkpoint = try await reader.document(in: "_sync", key: "checkpoint/\(synced)") {
                entry["checkpoint"] = StudioTree.node(try checkpoint.envelope())
            }
            let pending = try await pendingDocuments(of: synced, states: name, reader)
            entry["pending"] = .array(pending)
            let conflicts = "_sync.conflicts/\(synced)"
            var copies: [PropertyList] = []
            if names.contains(where: { $0.hasSameBytes(as: conflicts) }) {
                for copy in try await reader.documents(in: conflicts).prefix(syncListLimit) {
                    copies.append(.dictionary(try await conflict(copy, in: synced, reader)))
                }
            }
            entry["conflicts"] = .array(copies)
            collections.append(.dictionary(entry))
        }
        return ["clientID": record["clientID"] ?? .string("?"), "collections": .array(collections)]
    }

    /// The documents of `collection` with changes the server has not answered, as the replica finds them: the keys
    /// its last look found pending and those changed since (every key when the feed was pruned or it never
    /// looked), each compared with its sync state (none yet, pending mutations, or a revision other than the one
    /// in step). At most ``syncListLimit``.
    static func pendingDocuments(of collection: String, states: String, _ reader: Store.Reader) async throws
        -> [PropertyList]
    {
        var candidates: [ExactString: String] = [:]
        let scanned = try await scannedCandidates(of: collection, reader)
        for key in scanned ?? [] { candidates[ExactString(key)] = key }
        if scanned == nil {
            for key in try await reader.keys(in: collection) { candidates[ExactString(key)] = key }
            for key in try await reader.keys(in: states) { candidates[ExactString(key)] = key }
        }
        var pending: [PropertyList] = []
        for (_, key) in candidates.sorted(by: { $0.key < $1.key }) {
            let state = try await reader.document(in: states, key: key)?.envelope()
            let local = state?["local"]?.integerValue?.exactly(Int.self) ?? 0
            let waiting = state?["pending"]?.arrayValue?.count ?? 0
            let now = try await reader.document(in: collection, key: key)?.revision ?? 0
            guard waiting > 0 || local != now else { continue }
            pending.append(
                .dictionary([
                    "key": .string(key), "localRevision": StudioJSON.int(now),
                    "inStepRevision": StudioJSON.int(local), "pendingMutations": StudioJSON.int(waiting),
                ]))
            if pending.count >= syncListLimit { break }
        }
        return pending
    }

    /// The keys the replica's last look found pending and those changed since; `nil` when it never looked or the
    /// changes since were pruned.
    static func scannedCandidates(of collection: String, _ reader: Store.Reader) async throws -> [String]? {
        guard let scan = try await reader.document(in: "_sync", key: "scan/\(collection)")?.envelope(),
            let through = scan["through"]?.integerValue?.exactly(Int.self)
        else { return nil }
        let changes: [Change]
        do throws(HangarError) {
            changes = try await reader.changes(since: through, in: collection, limit: nil)
        } catch {
            guard error.code == .changesTooOld else { throw error }
            return nil
        }
        let pending = (scan["pending"]?.arrayValue ?? []).compactMap(\.stringValue)
        return changes.map(\.key) + pending
    }

    /// A conflict copy as base / mine / theirs: mine is the local version the resolver let the server's replace
    /// (kept by the replica), theirs the document now, base the local revision before mine in the document's
    /// history (when kept), with the diffs between them.
    static func conflict(_ copy: StoredDocument, in collection: String, _ reader: Store.Reader) async throws
        -> PropertyList.Dictionary
    {
        let record = try copy.envelope()
        let mine = try record["mine"]?.dataValue.map { try PropertyList(binary: $0) }
        let theirs = try await reader.document(in: collection, key: copy.key)
        let theirsValue = try theirs?.envelope()
        var base: PropertyList?
        if let theirs {
            let earlier = try await reader.history(in: collection, key: copy.key).filter {
                $0.revision < theirs.revision
            }
            var values: [PropertyList] = []
            for info in earlier.reversed() {
                if let stored = try await reader.document(in: collection, key: copy.key, revision: info.revision) {
                    values.append(try stored.envelope())
                }
            }
            if let mine, let mineIndex = values.firstIndex(where: { $0 == mine }), mineIndex + 1 < values.count {
                base = values[values.index(after: mineIndex)...].first { $0 != mine }
            }
        }
        var entry: PropertyList.Dictionary = [
            "key": .string(copy.key), "theirsRevision": record["theirsRevision"] ?? .integer(0),
        ]
        if let mine { entry["mine"] = StudioTree.node(mine) }
        if let theirsValue { entry["theirs"] = StudioTree.node(theirsValue) }
        if let base { entry["base"] = StudioTree.node(base) }
        let empty: PropertyList = .dictionary([:])
        entry["mineVersusTheirs"] = .array(StudioTree.diff(mine ?? empty, theirsValue ?? empty))
        if let base {
            entry["baseVersusMine"] = .array(StudioTree.diff(base, mine ?? empty))
            entry["baseVersusTheirs"] = .array(StudioTree.diff(base, theirsValue ?? empty))
        }
        return entry
    }
}
