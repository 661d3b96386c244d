import Foundation
import Hangar
import PropertyList
import Testing

/// Read-only stores, deletes of a newer app's documents, and the permissions of exported files, on every engine.
extension StoreBehaviour {
    /// A store opened read-only reads everything and refuses every write before it starts, writing nothing.
    func readOnlyRefusesEveryWrite() async throws {
        try await withStore { store in
            try await store.write { try await $0.save(Memo(title: "kept", body: "v1"), key: "a") }
            var configuration = Self.configuration()
            configuration.access = .readOnly
            let reader = try await reopen(store, configuration)
            #expect(try await reader.load(Memo.self, key: "a")?.value.body == "v1")
            #expect(try await reader.read { try await $0.keys(in: Memo.collection) } == ["a"])
            let directory = FileManager.default.temporaryDirectory.path + "/hangar-behaviour-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(try await reader.exportCollection(Memo.collection, to: directory).count == 1)
            let writes: [(String, () async throws -> Void)] = [
                ("save", { _ = try await reader.write { try await $0.save(Memo(title: "new"), key: "b") } }),
                ("delete", { _ = try await reader.write { try await $0.delete(key: "a", in: Memo.collection) } }),
                (
                    "restore",
                    { _ = try await reader.write { try await $0.restore(key: "a", in: Memo.collection, revision: 1) } }
                ),
                ("update", { try await reader.update(Memo.self, key: "a") { $0.body = "changed" } }),
                ("import", { try await reader.importFiles([directory + "/a.plist"], into: "copies") }),
            ]
            for (name, write) in writes {
                do {
                    try await write()
                    Issue.record("\(engine): a read-only store's \(name) went through")
                } catch let error as HangarError {
                    #expect(error.code == .readOnly, "\(engine) \(name): \(error)")
                }
            }
            await close(reader)
            let after = try await store.read { transaction in
                (try await transaction.lastChangeSequence(), try await transaction.keys(in: "copies"))
            }
            #expect(after.0 == 1 && after.1.isEmpty, "\(engine): a refused write left something behind")
            #expect(try await store.load(Memo.self, key: "a")?.value.body == "v1")
        }
    }

    /// A delete follows the save's rule: a stored document of a newer major than the collection's format reads
    /// is not deleted unless forced, and a delete of nothing at an expected revision is a conflict.
    /// Restoring an older revision over a stored newer major is refused, as a save and a delete are, unless forced;
    /// with or without a declared format.
    func restoreOverANewerMajorRefused() async throws {
        var configuration = Self.configuration()
        configuration.collections["formatted"] = CollectionOptions(format: Memo.format)
        try await withStore(configuration) { store in
            for collection in ["formatted", Memo.collection] {
                let newer: PropertyList = ["majorVersion": 3, "minorVersion": 0, "title": "from a newer app"]
                try await store.write {
                    try await $0.save(Memo(title: "current"), key: "n", in: collection)
                    _ = try await $0.save(
                        envelope: newer, key: "n", in: collection, expectedRevision: nil, overwritingNewerMajor: true)
                }
                do {
                    _ = try await store.write { try await $0.restore(key: "n", in: collection, revision: 1) }
                    Issue.record("\(engine): a restore replaced a newer major in \(collection)")
                } catch let error as HangarError {
                    #expect(error.code == .newerMajor && error.key == "n", "\(engine): \(error)")
                }
                #expect(try await store.document(in: collection, key: "n")?.revision == 2, "\(engine)")
                let forced = try await store.write {
                    try await $0.restore(key: "n", in: collection, revision: 1, overwritingNewerMajor: true)
                }
                #expect(forced == 3, "\(engine)")
                #expect(try await store.document(in: collection, key: "n")?.version.major == 2, "\(engine)")
                // Restoring the newer revision (now history) over the older one is a restore of a newer major:
                // refused where the collection declares the format, allowed where it does not.
                if collection == "formatted" {
                    try await expectError(.newerMajor) {
                        _ = try await store.write { try await $0.restore(key: "n", in: collection, revision: 2) }
                    }
                } else {
                    #expect(try await store.write { try await $0.restore(key: "n", in: collection, revision: 2) } == 4)
                }
            }
        }
    }

    func deleteOfANewerMajorRefused() async throws {
        var configuration = Self.configuration()
        configuration.collections["formatted"] = CollectionOptions(format: Memo.format)
        try await withStore(configuration) { store in
            let newer: PropertyList = ["majorVersion": 3, "minorVersion": 0, "title": "from a newer app"]
            try await store.write {
                _ = try await $0.save(
                    envelope: newer, key: "n", in: "formatted", expectedRevision: nil, overwritingNewerMajor: true)
                try await $0.save(Memo(title: "current"), key: "c", in: "formatted")
            }
            do {
                try await store.write { try await $0.delete(key: "n", in: "formatted") }
                Issue.record("\(engine): a newer major was deleted")
            } catch let error as HangarError {
                #expect(error.code == .newerMajor && error.key == "n", "\(engine): \(error)")
            }
            #expect(try await store.document(in: "formatted", key: "n")?.version.major == 3)
            #expect(try await store.write { try await $0.delete(key: "c", in: "formatted") })
            let forced = try await store.write {
                try await $0.delete(key: "n", in: "formatted", expectedRevision: 1, overwritingNewerMajor: true)
            }
            let left = try await store.document(in: "formatted", key: "n")
            #expect(forced && left == nil)
            // The change feed has the forced delete, as any other.
            let kinds = try await store.read { try await $0.changes(since: 0).map(\.kind) }
            #expect(kinds == [.save, .save, .delete, .delete])
        }
    }

    /// Exports create files and folders with the configured permissions, whatever the umask, on every engine
    /// (plain and sealed collection exports, and one-document exports).
    func exportsHonourPermissions() async throws {
        var configuration = try Self.encrypted(Self.keys[0])
        configuration.filePermissions = 0o640
        configuration.folderPermissions = 0o750
        try await withStore(configuration) { store in
            try await store.write { try await $0.save(Memo(title: "p"), key: "p") }
            let directory = FileManager.default.temporaryDirectory.path + "/hangar-behaviour-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let previous = umask(0o077)
            defer { umask(previous) }
            let paths =
                try await store.exportCollection(Memo.collection, to: directory + "/all")
                + store.exportCollection(Memo.collection, to: directory + "/sealed", sealed: true)
            try await store.export(key: "p", in: Memo.collection, to: directory + "/one.plist")
            #expect(Self.permissions(of: directory + "/all") == 0o750, "\(engine): export folder")
            #expect(Self.permissions(of: directory + "/sealed") == 0o750, "\(engine): sealed export folder")
            for path in paths + [directory + "/one.plist"] {
                #expect(Self.permissions(of: path) == 0o640, "\(engine): \(path)")
            }
        }
    }

    /// A file's permission bits, or nil when it cannot be read.
    static func permissions(of path: String) -> UInt16? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt16(info.st_mode & 0o7777)
    }
}
