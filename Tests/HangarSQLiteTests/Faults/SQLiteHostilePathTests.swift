import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// Export and mirror files stay in their folder whatever the key, every key comes back on import, and import
/// never follows a symbolic link out of its folder.
@Suite struct SQLiteHostilePathTests {
    static let hostileKeys = [
        "..", ".", "../x", "../../x", "/etc/passwd", "/", "a/../../b", "a/b/c", ".hidden", "~", "~root",
        String(repeating: "long", count: 100), String(repeating: "é", count: 300), String(repeating: "/..", count: 90),
        "Case", "case", "CASE", " ", "tab\there", "new\nline", "%2F", "%", "a%2Fb", "a/b", "nul-free\u{1}control",
        "emoji 🛩️", "\\..\\..\\windows",
    ]

    @Test func exportAndMirrorStayInTheirFolderAndEveryKeyComesBack() async throws {
        let root = try temporaryDirectory()
        let outside = root + "/outside"
        let store = try SQLiteStore(
            configuration: sqliteConfiguration(root + "/store.sqlite", mirroring: root + "/mirror"))
        try await store.write { transaction in
            for (index, key) in Self.hostileKeys.enumerated() {
                try transaction.save(Note(title: "\(index)", body: key), key: key)
            }
        }
        let paths = try await store.exportCollection("notes", to: outside + "/export")
        #expect(paths.count == Self.hostileKeys.count)
        for folder in [outside + "/export", root + "/mirror"] {
            let files = names(in: folder)
            #expect(files.count == Self.hostileKeys.count, "\(folder)")
            for name in files {
                #expect(!name.contains("/") && name.utf8.count <= 255 && !name.hasPrefix("."), "\(name)")
            }
        }
        // Nothing anywhere else: the root holds only the store, the mirror and the export.
        #expect(names(in: root).filter { !$0.hasPrefix("store.sqlite") } == ["mirror", "outside"])
        #expect(names(in: outside) == ["export"])
        // Every key back, each with its own document.
        let copy = try SQLiteStore(path: root + "/copy.sqlite")
        let imported = try await copy.importFiles(paths, into: "notes")
        #expect(Set(imported.map(\.key)) == Set(Self.hostileKeys))
        for key in Self.hostileKeys { #expect(try note(in: copy, key: key)?.body == key) }
    }

    @Test func emptyAndNulKeysAreRefusedBeforeAnyFile() throws {
        let store = try SQLiteStore.inMemory()
        for key in ["", "a\u{0}b"] {
            #expect {
                try store.write { try $0.save(Note(title: "", body: ""), key: key) }
            } throws: {
                ($0 as? HangarError)?.code == .invalidName
            }
        }
    }

    @Test func importRefusesSymbolicLinksAndSymlinkedFolders() async throws {
        let root = try temporaryDirectory()
        let store = try SQLiteStore(path: root + "/store.sqlite")
        try await store.write { try $0.save(Note(title: "t", body: secretMarker), key: "secret") }
        let outside = root + "/outside"
        try await store.exportCollection("notes", to: outside)
        let folder = root + "/import"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/link.plist", withDestinationPath: outside + "/secret.plist")
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked", withDestinationPath: outside)
        let target = try SQLiteStore(path: root + "/target.sqlite")
        for path in [folder + "/link.plist", folder + "/linked/secret.plist"] {
            await #expect { try await target.importFiles([path], into: "notes") } throws: { error in
                let error = error as? HangarError
                let description = error?.description ?? ""
                return error?.code == .io && error?.file == path && description.contains("symbolic link")
                    && !description.contains(secretMarker)
            }
        }
        #expect(try await target.read { try $0.keys(in: "notes") }.isEmpty)
    }
}
