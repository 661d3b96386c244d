import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

@Suite struct SQLiteStoreFilesTests {
    @Test func exportWritesBinaryOrXMLAtomically() async throws {
        let directory = try temporaryDirectory()
        let store = try SQLiteStore(path: directory + "/store.sqlite")
        try await store.write { try $0.save(Note(title: "Export", body: "me"), key: "e") }
        let binary = directory + "/e.plist"
        #expect(try await store.export(key: "e", in: "notes", to: binary) == 1)
        let bytes = try AtomicFile.contents(of: binary)
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        #expect(try PropertyList(binary: bytes)["title"] == "Export")
        let xml = directory + "/e.xml"
        try await store.export(key: "e", in: "notes", to: xml, format: .xml)
        #expect(
            String(decoding: try AtomicFile.contents(of: xml), as: UTF8.self).contains(
                "<key>title</key>\n\t<string>Export</string>"))
        // Nothing but the files asked for: no temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") } == [])
        await #expect {
            try await store.export(key: "missing", in: "notes", to: directory + "/m.plist")
        } throws: { error in
            guard case HangarError.notFound = error else { return false }
            return !FileManager.default.fileExists(atPath: directory + "/m.plist")
        }
    }

    static let awkwardKeys = [
        "plain", "with space", "a/b", "/", "..", ".", ".hidden", "../../etc/passwd", "日本", "percent%41",
        "control\u{1}\t\n\u{7F}", "emoji 🛩️👩🏽‍✈️", String(repeating: "k", count: 300),
        String(repeating: "飛行機の格納庫", count: 6), String(repeating: "飛行機の格納庫", count: 6) + "2",
        String(repeating: "%", count: 120),
        String(repeating: "a", count: 199) + "é" + String(repeating: "b", count: 60),
        String(repeating: "🛩️", count: 40),
    ]

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func exportAndImportACollectionKeepsEveryKey(format: PropertyListFormat) async throws {
        let directory = try temporaryDirectory()
        let source = try SQLiteStore.inMemory()
        let keys = Self.awkwardKeys
        try await source.write { transaction in
            for (index, key) in keys.enumerated() { try transaction.save(Note(title: "\(index)", body: ""), key: key) }
        }
        let paths = try await source.exportCollection("notes", to: directory + "/export", format: format)
        #expect(paths.count == keys.count)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory + "/export")
        #expect(names.count == keys.count)
        #expect(
            names.allSatisfy {
                !$0.hasPrefix(".") && !$0.contains("/") && $0.hasSuffix(".plist") && $0.utf8.count <= 255
            })
        let target = try Backend.file.makeStore()
        for path in paths { try await target.importFile(path, into: "notes") }
        #expect(try await target.read { try $0.keys(in: "notes") } == keys.sorted())
        for (index, key) in keys.enumerated() {
            let loaded = try await #require(try target.read { try $0.load(Note.self, key: key) })
            #expect(loaded.value.title == "\(index)")
            // The key the file carried is not part of the imported document.
            let stored = try await #require(try target.read { try $0.document(in: "notes", key: key) })
            #expect(try stored.envelope()[StoreFileNames.keyMetadataKey] == nil)
        }
        // All at once, as one unit, too.
        let batch = try Backend.file.makeStore()
        let results = try await batch.importFiles(paths, into: "notes")
        #expect(Set(results.map(\.key)) == Set(keys))
        #expect(try await batch.read { try $0.keys(in: "notes") } == keys.sorted())
    }

    @Test func aShortenedFileNameNeverSplitsAnEscape() {
        for key in Self.awkwardKeys + [String(repeating: "x", count: 199) + "日本語" + String(repeating: "y", count: 99)] {
            let name = StoreFileNames.fileName(for: key)
            #expect(name.utf8.count <= 255)
            guard let tilde = name.lastIndex(of: "~"), name.utf8.count > 240 || key.utf8.count > 80 else { continue }
            let kept = name[..<tilde]
            // Every `%` in the kept part is followed by two hex digits.
            let bytes = Array(kept.utf8)
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
                #expect(index + 2 < bytes.count, "\(key.prefix(20)): \(name)")
            }
        }
    }

    @Test func importingManyFilesIsAllOrNothingAndNamesTheBadFile() async throws {
        let directory = try temporaryDirectory()
        var paths: [String] = []
        for index in 0..<20 {
            let path = directory + "/n\(index).plist"
            try AtomicFile.save(
                try PropertyList.dictionary([
                    "majorVersion": 2, "minorVersion": 1, "title": "t", "body": .string("\(index)"),
                ])
                .encoded(as: .binary), to: path)
            paths.append(path)
        }
        let bad = directory + "/bad.plist"
        try AtomicFile.save(Array("<plist><dict><key>title</key>".utf8), to: bad)
        let store = try Backend.file.makeStore()
        await #expect {
            try await store.importFiles(paths[..<10] + [bad] + paths[10...], into: "notes")
        } throws: { error in
            guard let error = error as? HangarError, error.code == .invalidDocument else { return false }
            return error.file == bad
        }
        #expect(try await store.read { try $0.count(in: "notes") } == 0)
        // A file that reads but cannot be saved (a newer major than the stored one's) also rolls back all.
        try await store.write { try $0.save(envelope: ["majorVersion": 9, "minorVersion": 0], key: "n5", in: "notes") }
        await #expect {
            try await store.importFiles(paths, into: "notes")
        } throws: { error in
            guard let error = error as? HangarError, error.code == .newerMajor else { return false }
            return error.file == paths[5]
        }
        #expect(try await store.read { try $0.keys(in: "notes") } == ["n5"])
        let seen = EventLog()
        try await store.write { try $0.delete(key: "n5", in: "notes") }
        let results = try await store.importFiles(paths, into: "notes") {
            seen.append("\($0.phase) \($0.done)/\($0.total)")
        }
        #expect(results.count == 20 && results[0].key == "n0")
        #expect(seen.lines == ["reading 20/20", "saving 20/20"])
        #expect(try await store.read { try $0.count(in: "notes") } == 20)
    }

    @Test(arguments: [
        ("plain", "plain.plist"), ("a/b", "a%2Fb.plist"), (".hidden", "%2Ehidden.plist"), ("x.y", "x.y.plist"),
        ("é", "%C3%A9.plist"), ("100%", "100%25.plist"),
    ])
    func fileNamesAreSafeAndReversible(key: String, fileName: String) {
        #expect(StoreFileNames.fileName(for: key) == fileName)
        #expect(StoreFileNames.key(forFileName: fileName) == key)
    }

    @Test func importValidatesBeforeWriting() async throws {
        let directory = try temporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.collections["notes"] = CollectionOptions(format: Note.format)
        let store = try SQLiteStore.inMemory(store: configuration)
        let cases: [(String, [UInt8], HangarError.Code)] = [
            ("garbage.plist", Array("not a plist at all {".utf8), .invalidDocument),
            ("array.plist", try PropertyList.array([1]).encoded(as: .xml), .invalidDocument),
            ("noversion.plist", try PropertyList.dictionary(["title": "x"]).encoded(as: .binary), .invalidDocument),
            (
                "future.plist",
                try PropertyList.dictionary(["majorVersion": 7, "minorVersion": 0]).encoded(as: .binary), .newerMajor
            ),
        ]
        for (name, bytes, kind) in cases {
            try AtomicFile.save(bytes, to: directory + "/" + name)
            do {
                try await store.importFile(directory + "/" + name, into: "notes")
                Issue.record("\(name) was imported")
            } catch let error as HangarError {
                #expect(error.code == kind, "\(name): \(error)")
            }
        }
        #expect(try await store.read { try $0.count(in: "notes") } == 0)
        await #expect(throws: HangarError.self) {
            try await store.importFile(directory + "/absent.plist", into: "notes")
        }
    }

    @Test func mirrorFollowsSavesAndDeletes() throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        let store = try Backend.memory.makeStore(noteConfiguration(), mirroring: mirror)
        try store.write { try $0.save(Note(title: "M", body: "1"), key: "m/1") }
        let path = mirror + "/m%2F1.plist"
        #expect(try PropertyList(binary: AtomicFile.contents(of: path))["body"] == "1")
        try store.write { try $0.save(Note(title: "M", body: "2"), key: "m/1") }
        #expect(try PropertyList(binary: AtomicFile.contents(of: path))["body"] == "2")
        // A rolled-back transaction mirrors nothing.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.write { transaction in
                try transaction.save(Note(title: "M", body: "3"), key: "m/1")
                throw Abort()
            }
        }
        #expect(try PropertyList(binary: AtomicFile.contents(of: path))["body"] == "2")
        try store.write { try $0.delete(key: "m/1", in: "notes") }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func mirrorWritesBothOfTwoKeysEqualButForNormalization() throws {
        let directory = try temporaryDirectory()
        let mirror = directory + "/mirror"
        let store = try Backend.memory.makeStore(noteConfiguration(), mirroring: mirror)
        try store.write { transaction in
            try transaction.save(Note(title: "NFC", body: ""), key: "caf\u{E9}")
            try transaction.save(Note(title: "NFD", body: ""), key: "cafe\u{301}")
        }
        for (key, title) in [("caf\u{E9}", "NFC"), ("cafe\u{301}", "NFD")] {
            let path = mirror + "/" + StoreFileNames.fileName(for: key)
            #expect(try PropertyList(binary: AtomicFile.contents(of: path))["title"] == .string(title), "\(title)")
        }
    }

    @Test func twoStoresOnOneFileSeeEachOther() throws {
        let path = try temporaryDirectory() + "/shared.sqlite"
        let first = try SQLiteStore(path: path)
        let second = try SQLiteStore(path: path)
        try first.write { try $0.save(Note(title: "1", body: ""), key: "k") }
        #expect(try second.read { try $0.load(Note.self, key: "k")?.revision } == 1)
        try second.write { try $0.save(Note(title: "2", body: ""), key: "k", expectedRevision: 1) }
        #expect(throws: HangarError.self) {
            try first.write { try $0.save(Note(title: "3", body: ""), key: "k", expectedRevision: 1) }
        }
        #expect(try first.read { try $0.load(Note.self, key: "k")?.value.title } == "2")
    }

    @Test func aStoreFromANewerHangarIsRefusedUnchanged() throws {
        let path = try temporaryDirectory() + "/newer.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.write { try $0.save(Note(title: "x", body: ""), key: "k") }
            try store.checkpoint()
        }
        // Pretend a later Hangar wrote schema version 99.
        let raw = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 1000)
        try raw.execute("PRAGMA user_version = 99")
        let before = try AtomicFile.contents(of: path)
        #expect {
            try SQLiteStore(path: path)
        } throws: { error in
            guard case HangarError.newerSchema = error else { return false }
            return "\(error)".contains(
                "has store schema version 99; this Hangar reads up to \(SQLiteSchema.currentVersion)")
        }
        #expect(try AtomicFile.contents(of: path) == before)
    }

    @Test func integrityCheckAndBackup() throws {
        let directory = try temporaryDirectory()
        let store = try SQLiteStore(path: directory + "/live.sqlite")
        try store.write { transaction in
            for index in 0..<50 { try transaction.save(Note(title: "\(index)", body: ""), key: "k\(index)") }
        }
        #expect(try store.checkIntegrity() == ["ok"])
        try store.backup(to: directory + "/copy.sqlite")
        let copy = try SQLiteStore(path: directory + "/copy.sqlite")
        #expect(try copy.read { try $0.count(in: "notes") } == 50)
        #expect(try copy.checkIntegrity() == ["ok"])
    }

    @Test func defaultLocationFollowsThePlatform() {
        let path = SQLiteStore.defaultPath(application: "HangarTests")
        #expect(path.hasSuffix("/HangarTests/store.sqlite"))
        #if os(Linux)
            let environment = ProcessInfo.processInfo.environment
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                #expect(path.hasPrefix(xdg))
            } else {
                #expect(path.contains("/.local/share/"))
            }
        #endif
    }
}

@Suite struct MirrorFailureTests {
    @Test(arguments: Backend.allCases)
    func aCommittedWriteReturnsAndTheMirrorCatchesUpLater(backend: Backend) throws {
        let directory = try temporaryDirectory()
        // A regular file where the mirror folder's parent should be: the folder cannot be created, even as root.
        try AtomicFile.save(Array("not a folder".utf8), to: directory + "/blocker")
        let mirror = directory + "/blocker/mirror"
        let reported = EventLog()
        let store = try backend.makeStore(noteConfiguration(), mirroring: mirror) {
            reported.append("\($0.code) \($0.key ?? "") \($0.file ?? "")")
        }
        // The save commits and returns its revision: a caller never retries a write that landed.
        #expect(try store.write { try $0.save(Note(title: "a", body: "1"), key: "a") } == 1)
        #expect(try store.write { try $0.save(Note(title: "gone", body: ""), key: "gone") } == 1)
        try store.write { try $0.delete(key: "gone", in: "notes") }
        #expect(try store.read { try $0.load(Note.self, key: "a")?.revision } == 1)
        // "gone" failed to mirror, then was deleted: its file need not exist, so nothing is owed for it.
        #expect(try store.mirrorFailures().map(\.key) == ["a"])
        #expect(try store.mirrorFailures().map(\.path) == [mirror + "/a.plist"])
        #expect(reported.lines.first == "io a \(mirror)/a.plist")
        #expect(reported.lines.contains("io gone \(mirror)/gone.plist"))
        #expect(try store.retryMirrors().count == 1)
        // The folder becomes writable: the next mirror pass writes the current documents and clears the list.
        try FileManager.default.removeItem(atPath: directory + "/blocker")
        try store.write { try $0.save(Note(title: "b", body: ""), key: "b") }
        #expect(try store.mirrorFailures() == [])
        #expect(try PropertyList(binary: AtomicFile.contents(of: mirror + "/a.plist"))["body"] == "1")
        #expect(FileManager.default.fileExists(atPath: mirror + "/b.plist"))
        #expect(!FileManager.default.fileExists(atPath: mirror + "/gone.plist"))
    }
}

@Suite struct MirrorFailureLogTests {
    @Test func withoutAHandlerAMirrorFailureIsALineOnStandardError() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let directory = try temporaryDirectory()
            try AtomicFile.save(Array("not a folder".utf8), to: directory + "/blocker")
            var configuration = SQLiteStoreConfiguration(path: ":memory:", store: noteConfiguration())
            configuration.mirrors["notes"] = directory + "/blocker/m"
            let store = try SQLiteStore(configuration: configuration)
            try store.write { try $0.save(Note(title: "a", body: ""), key: "a") }
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(text.hasPrefix("hangar: /"))
        #expect(text.contains("/blocker/m/a.plist: notes/a: Saved, but the mirror file could not be updated"))
        #expect(text.hasSuffix(" (store :memory:)\n"))
        #expect(text.split(separator: "\n").count == 1)
    }
}
