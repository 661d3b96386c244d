import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// `hangar db check` and `hangar db salvage` on store files damaged for real, every verb on them run as a
/// child process (a crash is seen as a signal), and every error a one-line `FILE: reason`.
@Suite struct DamagedStoreCLITests {
    static let seed: UInt64 = 0xC0_44_0F7

    /// A store of `DamagedStores` with one leaf page of each of `tables` damaged, and its name.
    private static func damagedStore(in folder: String, tables: [String], allPages: Bool = false) throws -> String {
        let path = folder + "/damaged.sqlite"
        try DamagedStores.build(at: path)
        var generator = SeededGenerator(seed: seed)
        let pages = try DamagedStores.pages(of: path)
        for table in tables {
            let leaves = pages.filter { $0.name == table && $0.kind == "leaf" }.map(\.page)
            let chosen = allPages ? leaves : [leaves[Int.random(in: 0..<leaves.count, using: &generator)]]
            for page in chosen { try DamagedStores.damage(page: page, of: path, using: &generator) }
        }
        return path
    }

    /// The line `salvage` ends with, as numbers.
    private static func salvaged(_ stdout: String) -> (copied: Int, found: Int)? {
        guard let last = stdout.split(separator: "\n").last else { return nil }
        let words = last.split(separator: " ")
        guard words.count == 5, words[0] == "salvaged", words[2] == "of", words[4] == "documents",
            let copied = Int(words[1]), let found = Int(words[3])
        else { return nil }
        return (copied, found)
    }

    @Test func checkAndSalvageADamagedStore() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        let db = try Self.damagedStore(in: folder, tables: ["documents"])
        let check = try CLI.run(["db", "check", "--db", db])
        #expect(check.status == 1 && !check.signaled)
        #expect(check.stderr.isEmpty, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        let prefixes = ["damaged: ", "document not readable: "]
        #expect(lines.allSatisfy { line in prefixes.contains { line.hasPrefix($0) } }, "\(check.stdout)")
        #expect(lines.contains { $0.hasPrefix("damaged: ") }, "SQLite's integrity check is summarized")
        let unreadable = lines.filter { $0.hasPrefix("document not readable: ") }
        let names = unreadable.map { $0.dropFirst("document not readable: ".count).prefix { $0 != ":" } }
        #expect(Set(names).count == names.count, "each unreadable document is named once: \(unreadable)")

        let destination = folder + "/salvaged.sqlite"
        let salvage = try CLI.run(["db", "salvage", "--db", db, destination])
        #expect(salvage.status == 1 && !salvage.signaled && salvage.stderr.isEmpty, "\(salvage.stderr)")
        let counts = try #require(Self.salvaged(salvage.stdout), "\(salvage.stdout)")
        #expect(counts.found == DamagedStores.names.count, "the intact index names every document")
        #expect(counts.copied < counts.found && counts.copied > counts.found - 30, "\(salvage.stdout)")
        let lost = salvage.stdout.split(separator: "\n").dropLast().filter { !$0.hasPrefix("damaged: ") }
        #expect(lost.count == counts.found - counts.copied, "\(salvage.stdout)")
        #expect(lost.allSatisfy { $0.contains("/k0") && $0.contains(": ") }, "\(lost)")
        #expect(try CLI.run(["db", "check", "--db", destination]).stdout == "ok\n")

        // A destination that exists is refused, and left alone.
        let again = try CLI.run(["db", "salvage", "--db", db, destination])
        #expect(again.status == 1 && again.stderr.hasPrefix("\(destination): "), "\(again.stderr)")
    }

    @Test func salvageOfASoundStoreCopiesEverything() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        let db = folder + "/store.sqlite"
        try DamagedStores.build(at: db)
        let destination = folder + "/copy.sqlite"
        let result = try CLI.run(["db", "salvage", "--db", db, destination])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "salvaged \(DamagedStores.names.count) of \(DamagedStores.names.count) documents\n")
        #expect(
            try CLI.run(["db", "history", "--db", destination, "pilots", "k0004"]).stdout.split(separator: "\n").count
                == 3)
        #expect(try CLI.run(["db", "ls", "--db", destination, "fields"]).stdout.split(separator: "\n").count == 60)
    }

    /// Each case: the arguments, and the file or store the one error line must start with (nil for a usage
    /// error: `hangar: `, status 64).
    private static func failureCases(_ folder: String) throws -> [(arguments: [String], names: String?)] {
        let good = folder + "/good.sqlite"
        try DamagedStores.build(at: good)
        let damaged = try damagedStore(
            in: folder, tables: ["history", "documents", "sqlite_autoindex_documents_1"], allPages: true)
        let garbage = folder + "/garbage.sqlite"
        try Data(repeating: 0x5A, count: 10_000).write(to: URL(fileURLWithPath: garbage))
        let badPlist = folder + "/bad.plist"
        try Data("<plist><dict><key>a</key>\n</plist>".utf8).write(to: URL(fileURLWithPath: badPlist))
        let missing = folder + "/missing.sqlite"
        let directory = folder + "/a-folder"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return [
            (["db", "ls", "--db", missing], missing),
            (["db", "ls", "--db", directory], directory),
            (["db", "ls", "--db", garbage], garbage),
            (["db", "get", "--db", garbage, "pilots", "k0001"], garbage),
            (["db", "export", "--db", damaged, "pilots", folder + "/export"], damaged),
            (["db", "history", "--db", damaged, "pilots", "k0000"], damaged),
            (["db", "get", "--db", good, "pilots", "nobody"], good),
            (["db", "history", "--db", good, "pilots", "nobody"], good),
            (["db", "put", "--db", good, "pilots", "x", badPlist], badPlist),
            (["print", badPlist], badPlist),
            (["lint", badPlist], badPlist),
            (["convert", "xml1", missing], missing),
            (["db", "salvage", "--db", good, good], good),
            (["db", "salvage", "--db", missing, folder + "/new.sqlite"], missing),
            (["db", "backup", "--db", directory, folder + "/backup.sqlite"], directory),
            (["db", "ls", "--bogus"], nil),
            (["db", "ls"], nil),
            (["db", "salvage", "--db", good], nil),
            (["convert", "yaml", badPlist], nil),
            (["db", "frobnicate"], nil),
        ]
    }

    @Test func everyErrorIsOneLineNamingItsFile() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        for (arguments, name) in try Self.failureCases(folder) {
            let result = try CLI.run(arguments)
            let context = "hangar \(arguments.joined(separator: " ")): \(result.stderr)"
            #expect(!result.signaled, "\(context)")
            #expect(result.status == (name == nil ? 64 : 1), "\(context)")
            #expect(result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" }.count == 1, "\(context)")
            #expect(result.stderr.hasPrefix("\(name ?? "hangar"): "), "\(context)")
            #expect(!result.stderr.contains("ExitCode"), "\(context)")
        }
    }

    @Test func checkOfAFileThatIsNotAStore() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        let garbage = folder + "/garbage.sqlite"
        try Data(repeating: 0x5A, count: 10_000).write(to: URL(fileURLWithPath: garbage))
        let result = try CLI.run(["db", "check", "--db", garbage])
        #expect(result.status == 1 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("damaged: "), "\(result.stdout)")
        #expect(!result.stdout.contains("ExitCode"))
        let salvage = try CLI.run(["db", "salvage", "--db", garbage, folder + "/new.sqlite"])
        #expect(salvage.status == 1 && salvage.stdout.hasSuffix("salvaged 0 of 0 documents\n"), "\(salvage.stdout)")
    }

    /// Random bytes flipped anywhere in a small store, again and again: no verb crashes, each error is one line.
    @Test func flippedBytesNeverCrashAVerb() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        let pristine = folder + "/pristine.sqlite"
        let store = try SQLiteStore(path: pristine)
        try store.write { transaction in
            for index in 0..<40 {
                for revision in 1...2 {
                    try transaction.save(
                        envelope: DamagedStores.envelope(
                            collection: index % 2 == 0 ? "pilots" : "planes", key: DamagedStores.key(index),
                            revision: revision),
                        key: DamagedStores.key(index), in: index % 2 == 0 ? "pilots" : "planes")
                }
            }
        }
        try store.checkpoint()
        let size = try FileManager.default.attributesOfItem(atPath: pristine)[.size] as? Int ?? 0
        var generator = SeededGenerator(seed: Self.seed)
        for round in 0..<8 {
            let path = folder + "/fuzz-\(round).sqlite"
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            try DamagedStores.flip(path, region: 0..<size, count: Int.random(in: 1...24, using: &generator), &generator)
            let verbs: [[String]] = [
                ["db", "ls", "--db", path, "pilots"], ["db", "get", "--db", path, "planes", "k0001"],
                ["db", "history", "--db", path, "pilots", "k0000"], ["db", "changes", "--db", path],
                ["db", "check", "--db", path],
                ["db", "salvage", "--db", path, folder + "/salvaged-\(round).sqlite"],
            ]
            for arguments in verbs {
                let result = try CLI.run(arguments)
                let context = "round \(round), seed \(Self.seed): hangar \(arguments.joined(separator: " "))"
                #expect(!result.signaled, "\(context) crashed: \(result.stderr)")
                #expect(result.status == 0 || result.status == 1, "\(context): \(result.stderr)")
                #expect(result.stderr.filter { $0 == "\n" }.count <= 1, "\(context): \(result.stderr)")
            }
        }
    }
}

/// A store that SQLite reads as whole is whole: `db check` says ok, whatever the file's header says of its length
/// while the write-ahead log holds pages a checkpoint could not copy.
@Suite(.serialized) struct WholeStoreCheckTests {
    /// After a disk-full episode on a real tmpfs and the space freed again, every acknowledged document reads back
    /// and `db check` says ok: no `damaged:` line, no salvage suggested.
    @Test func aStoreThatFilledItsDiskChecksOkOnceThereIsRoomAgain() throws {
        guard let fileSystem = SmallFileSystem.mount(megabytes: 3) else { return }
        defer { fileSystem.unmount() }
        let db = fileSystem.path + "/store.sqlite"
        var acknowledged: [String] = []
        do {
            let store = try SQLiteStore(path: db)
            let filler = fileSystem.fill(leaving: 256 << 10)
            let payload = PropertyList.data((0..<(24 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            for index in 0..<200 {
                let key = "k\(index)"
                do {
                    try store.write {
                        try $0.save(
                            envelope: ["majorVersion": 1, "minorVersion": 0, "payload": payload], key: key, in: "notes")
                    }
                    acknowledged.append(key)
                } catch let error as HangarError where error.code == .diskFull {
                    break
                }
            }
            #expect(acknowledged.count < 200, "the disk never filled")
            try FileManager.default.removeItem(atPath: filler)
            #expect(try store.read { try $0.keys(in: "notes") } == acknowledged.sorted())
        }
        let check = try CLI.run(["db", "check", "--db", db])
        #expect(check.status == 0 && check.stdout == "ok\n", "\(check.stdout)\(check.stderr)")
        #expect(!check.stdout.contains("damaged") && !check.stdout.contains("salvage"))
    }

    /// The exact state such an episode can leave: the file's header counts more pages than the file holds, the
    /// write-ahead log holds the rest. SQLite reads it whole, and so does `db check`.
    @Test func aFileShorterThanItsHeaderWhoseLogHoldsTheRestIsWhole() throws {
        let folder = try CLI.temporaryDirectory()
        defer { CLI.remove(folder) }
        let original = folder + "/original.sqlite"
        let copy = folder + "/copy.sqlite"
        let store = try #require(try DamagedStores.build(at: original, leavingLog: true))
        // Bigger documents in the log only: the database grows past the file's end there.
        try store.write { transaction in
            for index in 0..<40 {
                let big = PropertyList.data(Array(repeating: UInt8(index), count: 8 << 10))
                try transaction.save(
                    envelope: ["majorVersion": 1, "minorVersion": 0, "big": big], key: "big\(index)", in: "pilots")
            }
        }
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        try FileManager.default.copyItem(atPath: original + "-wal", toPath: copy + "-wal")
        _ = store
        // The page count SQLite sees (file and log), written into the copy's header as a checkpoint that wrote
        // page 1 but could not extend the file would leave it.
        let pages = try DamagedStores.pageCount(of: copy)
        let handle = try #require(FileHandle(forUpdatingAtPath: copy))
        let length = try handle.seekToEnd()
        let pageSize = try DamagedStores.pageSize(of: copy)
        try #require(UInt64(pages * pageSize) > length, "the log must hold pages past the file's end")
        try handle.seek(toOffset: 28)
        try handle.write(contentsOf: withUnsafeBytes(of: UInt32(pages).bigEndian) { Data($0) })
        try handle.close()
        let check = try CLI.run(["db", "check", "--db", copy])
        #expect(check.status == 0 && check.stdout == "ok\n", "\(check.stdout)\(check.stderr)")
        #expect(try SQLiteStore.survey(path: copy).unreadable.isEmpty)
    }
}
