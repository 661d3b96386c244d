import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import PilotModels
import PropertyList
import Testing

/// The server's remembered answers are forgotten once no client can need them, and forgetting one never makes a
/// mutation apply twice; a mutation asking for exactly what the server holds is applied without a new revision.
@Suite struct SyncAnswersTests {
    let server: SQLiteStore
    let sync: SyncServer<SQLiteStore>

    init() throws {
        let folder = try ScratchFolders.make("sync-answers")
        server = try SQLiteStore(
            path: folder + "/server.sqlite", store: SyncWorld.configuration().keepingNoSyncHistory())
        sync = SyncServer(store: server)
    }

    func push(_ key: String, _ name: String?, id: Int, base: Int, client: String = "device") async throws
        -> SyncOutcome?
    {
        let body = try name.map { try SyncScopeTests.body($0) }
        let push = SyncPush(clientID: client, mutations: [SyncMutation(id: id, key: key, base: base, body: body)])
        return try await sync.push(push, to: Pilot.collection).outcomes.first
    }

    func remembered() async throws -> [String] {
        try await server.read { try await $0.keys(in: SyncServer<SQLiteStore>.mutationsCollection) }
    }

    func revisions(of key: String) async throws -> Int {
        try await server.read { try $0.history(in: Pilot.collection, key: key).count }
    }

    @Test func answersOlderThanTheDateAreForgottenOldestFirstAndNoneYounger() async throws {
        for id in 1...5 {
            #expect(try await push("p\(id)", "P\(id)", id: id, base: 0) == .applied(revision: 1))
            try await Task.sleep(for: .milliseconds(20))  // distinct save times, so "oldest" is one order
        }
        #expect(try await sync.forgetAnswers(olderThan: .distantPast) == 0)
        #expect(try await remembered().count == 5)
        #expect(try await sync.forgetAnswers(olderThan: Date(timeIntervalSinceNow: 60), limit: 2) == 2)
        #expect(try await remembered() == ["device/3", "device/4", "device/5"], "the oldest two went first")
        #expect(try await sync.forgetAnswers(olderThan: Date(timeIntervalSinceNow: 60)) == 3)
        #expect(try await remembered().isEmpty)
        // With no history kept for the answers, their bytes left the store.
        let kept = try await server.read {
            try $0.document(in: SyncServer<SQLiteStore>.mutationsCollection, key: "device/1", revision: 1)
        }
        #expect(kept == nil)
        // The default age is the change retention's (30 days): nothing this young goes.
        _ = try await push("p9", "P9", id: 9, base: 0)
        #expect(try await sync.forgetAnswers() == 0)
    }

    @Test func aRetryWhoseAnswerWasForgottenIsNotAppliedTwice() async throws {
        #expect(try await push("ada", "Ada", id: 1, base: 0) == .applied(revision: 1))
        #expect(try await push("ada", "Ada 2", id: 2, base: 1) == .applied(revision: 2))
        try await sync.forgetAnswers(olderThan: Date(timeIntervalSinceNow: 60))
        // The edit retried (its answer lost, then forgotten): the server holds exactly it, so applied, no revision.
        #expect(try await push("ada", "Ada 2", id: 2, base: 1) == .applied(revision: 2))
        #expect(try await revisions(of: "ada") == 2)
        // Another client moved it on; the first retry again: a conflict carrying theirs, never a third revision.
        #expect(try await push("ada", "Ada 3", id: 1, base: 2, client: "other") == .applied(revision: 3))
        try await sync.forgetAnswers(olderThan: Date(timeIntervalSinceNow: 60))
        guard case .conflict(let theirs, _) = try await push("ada", "Ada 2", id: 2, base: 1) else {
            Issue.record("expected a conflict")
            return
        }
        let ada3 = try SyncScopeTests.body("Ada 3")
        #expect(theirs.revision == 3 && theirs.body == ada3)
        #expect(try await revisions(of: "ada") == 3)
    }

    @Test func theSameEditOrDeleteMadeTwiceIsNotAConflict() async throws {
        #expect(try await push("bo", "Bo", id: 1, base: 0, client: "a") == .applied(revision: 1))
        // B created the same document offline: what it asks for is already there.
        #expect(try await push("bo", "Bo", id: 1, base: 0, client: "b") == .applied(revision: 1))
        #expect(try await push("bo", nil, id: 2, base: 1, client: "a") == .applied(revision: 0))
        #expect(try await push("bo", nil, id: 2, base: 1, client: "b") == .applied(revision: 0))
        let changes = try await server.read { try $0.changes(since: 0, in: Pilot.collection, limit: nil) }
        #expect(changes.count == 2, "saved once, deleted once")
        // And B's answers are remembered like any other: a retry gets them back.
        guard case .applied(let revision, _) = try await push("bo", "Bo", id: 1, base: 0, client: "b") else {
            Issue.record("expected the remembered answer")
            return
        }
        #expect(revision == 1)
    }
}
