import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// SQLiteStore files damaged for real: bytes overwritten in pages of every role, in the write-ahead log, files cut
/// short, another store's log beside a file. Every operation works or throws a `HangarError`; the survey and
/// the salvage read every document outside the damaged pages.
@Suite struct SQLiteDamagedStoreTests {
    static let seed: UInt64 = 0x5A17_A6E0

    private static func directory() throws -> String {
        try ScratchFolders.make("hangar-damaged")
    }

    /// Runs `body`; an error that is not a `HangarError` fails the test.
    private static func typed<Result>(_ what: String, _ body: () throws -> Result) -> Result? {
        do {
            return try body()
        } catch is HangarError {
            return nil
        } catch {
            Issue.record("\(what) threw a \(type(of: error)), not a HangarError: \(error)")
            return nil
        }
    }

    /// ``typed(_:_:)`` for an async body.
    private static func typedAsync<Result>(_ what: String, _ body: () async throws -> Result) async -> Result? {
        do {
            return try await body()
        } catch is HangarError {
            return nil
        } catch {
            Issue.record("\(what) threw a \(type(of: error)), not a HangarError: \(error)")
            return nil
        }
    }

    /// Every operation on the store at `path`: open, list, get every key, history, changes, export, check.
    static func exerciseEverything(_ path: String, exportTo folder: String) async {
        _ = typed("survey") { try SQLiteStore.survey(path: path) }
        _ = typed("integrity check") { try SQLiteStore.checkIntegrity(path: path) }
        guard let store = typed("open", { try SQLiteStore(path: path) }) else { return }
        _ = typed("integrity check") { try store.checkIntegrity() }
        let collections = typed("collections") { try store.read { try $0.collections() } } ?? []
        for collection in collections + ["pilots"] {
            let keys = typed("keys") { try store.read { try $0.keys(in: collection) } } ?? []
            for key in keys {
                if let stored = typed("get", { try store.read { try $0.document(in: collection, key: key) } }),
                    let stored
                {
                    _ = typed("decode") { try stored.envelope() }
                }
                _ = typed("history") { try store.read { try $0.history(in: collection, key: key) } }
            }
            _ = typed("documents") { try store.read { try $0.documents(in: collection) } }
            _ = await typedAsync("export") {
                try await store.exportCollection(collection, to: folder + "/" + collection, format: .xml)
            }
        }
        _ = typed("changes") { try store.read { try $0.changes(since: 0) } }
        _ = typed("mirror failures") { try store.mirrorFailures() }
    }

    @Test(arguments: ["documents", "sqlite_autoindex_documents_1", "history", "index_entries"])
    func aDamagedPageCostsOnlyItsOwnDocuments(table: String) async throws {
        let folder = try Self.directory()
        let pristine = folder + "/pristine.sqlite"
        try DamagedStores.build(at: pristine)
        let pages = try DamagedStores.pages(of: pristine).filter { $0.name == table && $0.kind == "leaf" }
        try #require(!pages.isEmpty, "no leaf page of \(table)")
        var generator = SeededGenerator(seed: Self.seed ^ UInt64(table.utf8.count))
        for round in 0..<3 {
            let page = pages[Int.random(in: 0..<pages.count, using: &generator)].page
            let path = folder + "/damaged-\(round).sqlite"
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            // The documents on the page, by rowid, before it is damaged.
            let onPage = table == "documents" ? Set(try DamagedStores.rowids(onLeafPage: page, of: pristine)) : []
            try DamagedStores.damage(page: page, of: path, using: &generator)
            let context = "\(table) page \(page), seed \(Self.seed)"

            let survey = try SQLiteStore.survey(path: path)
            let destination = folder + "/salvaged-\(round).sqlite"
            let report = try SQLiteStore.salvage(from: path, to: destination)
            #expect(report.found == survey.count, "\(context)")
            #expect(report.copied + report.lost.count == report.found, "\(context)")
            let copy = try SQLiteStore(path: destination)
            let copied = try await copy.read { transaction in
                try transaction.collections().flatMap { collection in
                    try transaction.documents(in: collection)
                }
            }
            #expect(copied.count == report.copied, "\(context)")
            #expect(copied.allSatisfy(DamagedStores.isIntact), "\(context): a copied document is not what it says")
            // Every document outside the damaged page is copied.
            let expected = DamagedStores.names.count - (table == "documents" ? onPage.count : 0)
            #expect(copied.count >= expected, "\(context): \(copied.count) copied, \(report.lost) lost")
            if table != "documents" {
                #expect(report.lost.isEmpty && report.unreadable.isEmpty, "\(context): \(report.lost)")
            }
            // Their history too, unless it is the history that is damaged.
            if table != "history" {
                let revisions = try await copy.read { try $0.history(in: "pilots", key: DamagedStores.key(0)) }
                #expect(revisions.map(\.revision) == [1, 2, 3] || table == "documents", "\(context)")
            }
            await Self.exerciseEverything(path, exportTo: folder + "/export-\(round)")
        }
    }

    @Test func aDamagedWriteAheadLogLosesOnlyLaterCommits() async throws {
        let folder = try Self.directory()
        let live = folder + "/live.sqlite"
        let store = try DamagedStores.build(at: live, leavingLog: true)
        let path = folder + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: live, toPath: path)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: path + "-wal")
        withExtendedLifetime(store) {}
        let size = try DamagedStores.pageSize(of: path)
        let log = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
        try #require(log.count > 32 + 2 * (24 + size), "the log holds frames")
        var generator = SeededGenerator(seed: Self.seed)
        // A frame's page (past the log's header and the frame's own).
        let frame = Int.random(in: 0..<((log.count - 32) / (24 + size)), using: &generator)
        let start = 32 + frame * (24 + size) + 24
        try DamagedStores.flip(path + "-wal", region: start..<(start + size), count: 8, &generator)

        let report = try SQLiteStore.salvage(from: path, to: folder + "/salvaged.sqlite")
        #expect(report.copied == DamagedStores.names.count, "the file's own pages hold every document")
        let copy = try SQLiteStore(path: folder + "/salvaged.sqlite")
        let copied = try await copy.read { try $0.documents(in: "pilots") }
        #expect(copied.allSatisfy(DamagedStores.isIntact))
        await Self.exerciseEverything(path, exportTo: folder + "/export")
    }

    @Test(arguments: [0, 60, 4096 + 1500, -1])
    func aFileCutShortGivesTypedErrors(length: Int) async throws {
        let folder = try Self.directory()
        let path = folder + "/store.sqlite"
        try DamagedStores.build(at: path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        try DamagedStores.truncate(path, to: length < 0 ? size / 2 : length)
        let report = try SQLiteStore.salvage(from: path, to: folder + "/salvaged.sqlite")
        #expect(report.copied + report.lost.count == report.found)
        if length < 0 {
            #expect(report.copied > 0, "the first half of the file still holds documents")
        }
        await Self.exerciseEverything(path, exportTo: folder + "/export")
    }

    @Test func anotherStoresWriteAheadLogBesideAFile() async throws {
        let folder = try Self.directory()
        let path = folder + "/store.sqlite"
        try DamagedStores.build(at: path)
        let other = folder + "/other.sqlite"
        let store = try DamagedStores.build(at: other, leavingLog: true)
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: path + "-wal")
        withExtendedLifetime(store) {}
        let report = try SQLiteStore.salvage(from: path, to: folder + "/salvaged.sqlite")
        #expect(report.copied + report.lost.count == report.found)
        let copy = try SQLiteStore(path: folder + "/salvaged.sqlite")
        #expect(try await copy.read { try $0.documents(in: "planes") }.allSatisfy(DamagedStores.isIntact))
        await Self.exerciseEverything(path, exportTo: folder + "/export")
    }

    @Test func aSoundStoreIsSalvagedWhole() throws {
        let folder = try Self.directory()
        let path = folder + "/store.sqlite"
        try DamagedStores.build(at: path)
        let report = try SQLiteStore.salvage(from: path, to: folder + "/salvaged.sqlite")
        #expect(report.found == DamagedStores.names.count && report.copied == report.found)
        #expect(report.lost.isEmpty && report.unreadable.isEmpty && report.historyRevisionsLost == 0)
        let copy = try SQLiteStore(path: folder + "/salvaged.sqlite", store: DamagedStores.configuration())
        let history = try copy.read { try $0.history(in: "planes", key: DamagedStores.key(4)) }
        #expect(history.map(\.revision) == [1, 2, 3])
        // Revisions go on growing, the index is rebuilt, and a follower of the old store starts over.
        let revision = try copy.write {
            try $0.save(
                envelope: DamagedStores.envelope(collection: "planes", key: DamagedStores.key(4), revision: 4),
                key: DamagedStores.key(4), in: "planes")
        }
        #expect(revision == 4)
        #expect(try copy.read { try $0.keys(in: "pilots", index: "name", equalTo: "k0001 at revision 1") } == ["k0001"])
        let tooOld = #expect(throws: HangarError.self) { try copy.read { try $0.changes(since: 1) } }
        #expect(tooOld?.code == .changesTooOld)
        let exists = #expect(throws: HangarError.self) {
            try SQLiteStore.salvage(from: path, to: folder + "/salvaged.sqlite")
        }
        #expect(exists?.code == .io)
    }
}
