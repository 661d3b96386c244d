import Foundation
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar

/// `SQLiteStore.close()`: the store's files are released, and every later operation refuses with `closed`.
@Suite struct SQLiteStoreCloseTests {
    /// The descriptors this process holds on `path` and the files beside it (`-wal`, `-shm`).
    static func openDescriptors(on path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)
            else { return false }
            return target.hasPrefix(path)
        }
    }

    /// Runs `body` and checks it throws `HangarError.closed`, matched the way an app matches it.
    static func expectClosed(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what) ran on a closed store")
        } catch HangarError.closed {
            // The form every code has: `catch HangarError.closed`.
        } catch {
            Issue.record("\(what) threw \(error), not closed")
        }
    }

    @Test func closeReleasesTheFilesAndEveryLaterOperationRefuses() async throws {
        let directory = try ScratchFolders.make("hangar-close")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.sqlite"
        let store = try SQLiteStore(path: path)
        try await store.write { try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "a", in: "notes") }
        _ = try await store.read { try $0.document(in: "notes", key: "a") }
        #expect(Self.openDescriptors(on: path) >= 3, "the premise: the file, its log and its shared memory are open")
        await store.close()
        #expect(Self.openDescriptors(on: path) == 0)
        await Self.expectClosed("read") { _ = try await store.read { try $0.document(in: "notes", key: "a") } }
        await Self.expectClosed("write") {
            _ = try await store.write {
                try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "b", in: "notes")
            }
        }
        await Self.expectClosed("blocking read") { _ = try store.read { try $0.document(in: "notes", key: "a") } }
        await Self.expectClosed("checkIntegrity") { _ = try store.checkIntegrity() }
        await Self.expectClosed("backup") { try store.backup(to: directory + "/copy.sqlite") }
        await Self.expectClosed("checkpoint") { try store.checkpoint() }
        #expect(!FileManager.default.fileExists(atPath: directory + "/copy.sqlite"))
        #expect(Self.openDescriptors(on: path) == 0, "nothing reopened the file")
        await store.close()
    }

    @Test func closeWaitsForAReadUnderWay() async throws {
        let directory = try ScratchFolders.make("hangar-close")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/notes.sqlite"
        let store = try SQLiteStore(path: path)
        try await store.write { try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "a", in: "notes") }
        let reading = Task {
            try await store.read { transaction in
                try await Task.sleep(for: .milliseconds(400))
                return try transaction.document(in: "notes", key: "a")?.revision
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        await store.close()
        #expect(try await reading.value == 1, "the read under way finished on its connection")
        #expect(Self.openDescriptors(on: path) == 0)
    }
}
