import Foundation
import Hangar
import HangarSQLite
import PropertyList
import Testing

@Suite struct MirrorCheckTests {
    @Test func checkReportsAMirrorFileACommittedSaveCouldNotWrite() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        // A regular file where the mirror folder's parent should be: the folder cannot be created, even as root.
        try Data("blocker".utf8).write(to: URL(fileURLWithPath: directory + "/blocker"))
        var configuration = SQLiteStoreConfiguration(path: db)
        configuration.mirrors["pilots"] = directory + "/blocker/mirror"
        configuration.mirrorFailureHandler = { _ in }
        do {
            let store = try SQLiteStore(configuration: configuration)
            let revision = try store.write {
                try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "amelia", in: "pilots")
            }
            #expect(revision == 1)
        }
        var result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix("mirror not updated: \(directory)/blocker/mirror/amelia.plist (pilots/amelia): "))
        #expect(result.stdout.split(separator: "\n").count == 1)
        // Once the folder can be written, the next mirror pass catches up and check is clean.
        try FileManager.default.removeItem(atPath: directory + "/blocker")
        let store = try SQLiteStore(configuration: configuration)
        #expect(try store.retryMirrors() == [])
        #expect(FileManager.default.fileExists(atPath: directory + "/blocker/mirror/amelia.plist"))
        result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 0 && result.stdout == "ok\n")
    }
}

extension MirrorCheckTests {
    @Test func checkReportsFilesAMirrorHasNotCaughtUpWith() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        let envelope: PropertyList = ["majorVersion": 1, "minorVersion": 0]
        var configuration = SQLiteStoreConfiguration(path: db)
        configuration.mirrors["pilots"] = directory + "/mirror"
        do {
            let store = try SQLiteStore(configuration: configuration)
            try store.write { try $0.save(envelope: envelope, key: "amelia", in: "pilots") }
        }
        // A store without the mirror (another app, or one killed before its mirror pass) saves: the mirror is behind.
        do {
            let other = try SQLiteStore(path: db)
            try other.write { try $0.save(envelope: envelope, key: "bessie", in: "pilots") }
        }
        var result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 1)
        #expect(
            result.stdout == "mirror not updated: \(directory)/mirror/bessie.plist (pilots/bessie): not mirrored yet: "
                + "the mirror is at sequence 1, the feed at 2\n")
        // The mirroring store opens again and catches up: check is clean.
        _ = try SQLiteStore(configuration: configuration)
        #expect(FileManager.default.fileExists(atPath: directory + "/mirror/bessie.plist"))
        result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 0 && result.stdout == "ok\n")
    }
}

@Suite struct DBImportBatchTests {
    @Test func aLongImportReportsProgressAndLongKeysComeBack() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = directory + "/store.sqlite"
        let japanese = String(repeating: "格納庫の飛行機", count: 6)
        let store = try SQLiteStore(path: db)
        try store.write { transaction in
            try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: japanese, in: "pilots")
            for index in 0..<1_000 {
                try transaction.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "p\(index)", in: "pilots")
            }
        }
        var result = try CLI.run(["db", "export", "--db", db, "pilots", directory + "/out"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = result.stdout.split(separator: "\n").map(String.init)
        #expect(files.count == 1_001)
        let copy = directory + "/copy.sqlite"
        result = try CLI.run(["db", "import", "--db", copy, "pilots"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "read 1000/1001\nread 1001/1001\nsaved 1000/1001\nsaved 1001/1001\n")
        #expect(result.stdout.split(separator: "\n").contains("\(japanese) 1"))
        let keys = try CLI.run(["db", "ls", "--db", copy, "pilots"]).stdout.split(separator: "\n").map(String.init)
        #expect(keys.count == 1_001 && keys.contains(japanese))
        // `db put` stores an exported file that carries its key under the key it is given, without the key inside.
        let carrying = try #require(files.first { $0.contains("~") })
        result = try CLI.run(["db", "put", "--db", copy, "pilots", "renamed", carrying])
        #expect(result.status == 0 && result.stdout == "1\n", "\(result.stderr)")
        result = try CLI.run(["db", "get", "--db", copy, "pilots", "renamed"])
        #expect(!result.stdout.contains(StoreFileNames.keyMetadataKey))
    }
}
