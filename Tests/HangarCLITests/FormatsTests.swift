import Foundation
import HangarTestSupport
import PropertyList
import Testing

/// `hangar formats`, run as a real process against copies of the repository's kit folders and real SQLite files.
@Suite struct FormatsTests {
    static let pilots = repositoryRoot + "/Migrations/Pilots"

    /// A scratch copy of `Migrations/Pilots`.
    static func copyOfPilots() throws -> (directory: String, folder: String) {
        let directory = try CLI.temporaryDirectory()
        let folder = directory + "/Pilots"
        try FileManager.default.copyItem(atPath: pilots, toPath: folder)
        return (directory, folder)
    }

    static func manifest(_ folder: String) throws -> PropertyList.Dictionary {
        try #require(try PropertyList(xml: CLI.bytes(folder + "/format.plist")).dictionaryValue)
    }

    static func write(_ value: PropertyList, to path: String) throws {
        try Data(value.encoded(as: .xml)).write(to: URL(fileURLWithPath: path))
    }

    /// One line per problem on stdout, each `FOLDER: RULE VERSION PATH: message`, and exit status 1.
    static func expectProblem(
        _ result: CLI.Result, folder: String, prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, sourceLocation: sourceLocation)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(
            !lines.isEmpty && lines.allSatisfy { $0.hasPrefix(folder + ": ") }, "\(result.stdout)",
            sourceLocation: sourceLocation)
        #expect(
            lines.contains { $0.hasPrefix(folder + ": " + prefix) }, "\(result.stdout)", sourceLocation: sourceLocation)
    }

    @Test func theRepositorysFoldersAreOK() throws {
        let logbooks = repositoryRoot + "/Migrations/Logbooks"
        let result = try CLI.run(["formats", "check", Self.pilots, logbooks])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout == "\(Self.pilots): OK\n\(logbooks): OK\n")
    }

    @Test func aWrongChecksumIsFrozenFileChanged() throws {
        let (directory, folder) = try Self.copyOfPilots()
        defer { CLI.remove(directory) }
        var manifest = try Self.manifest(folder)
        var versions = try #require(manifest["versions"]?.arrayValue)
        var first = try #require(versions[0].dictionaryValue)
        var documents = try #require(first["documents"]?.arrayValue)
        var document = try #require(documents[0].dictionaryValue)
        document["plist"] = .string(String(repeating: "0", count: 64))
        documents[0] = .dictionary(document)
        first["documents"] = .array(documents)
        versions[0] = .dictionary(first)
        manifest["versions"] = .array(versions)
        try Self.write(.dictionary(manifest), to: folder + "/format.plist")
        let result = try CLI.run(["formats", "check", folder])
        Self.expectProblem(result, folder: folder, prefix: "FROZEN_FILE_CHANGED 1.0 1.0/ada.plist: SHA-256 is ")
    }

    @Test func aTruncatedFrozenFileIsFrozenFileChanged() throws {
        let (directory, folder) = try Self.copyOfPilots()
        defer { CLI.remove(directory) }
        let bytes = CLI.bytes(folder + "/1.1/ada.plist")
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: folder + "/1.1/ada.plist"))
        let result = try CLI.run(["formats", "check", folder])
        Self.expectProblem(result, folder: folder, prefix: "FROZEN_FILE_CHANGED 1.1 1.1/ada.plist: SHA-256 is ")
    }

    @Test func aNameThatLeavesTheFolderIsManifestInvalid() throws {
        let (directory, folder) = try Self.copyOfPilots()
        defer { CLI.remove(directory) }
        let text = String(decoding: CLI.bytes(folder + "/format.plist"), as: UTF8.self)
            .replacingOccurrences(of: "<string>ada</string>", with: "<string>../../../etc/passwd</string>")
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/format.plist"))
        let result = try CLI.run(["formats", "check", folder])
        Self.expectProblem(
            result, folder: folder, prefix: "MANIFEST_INVALID - format.plist: versions[0].documents[0].name: ")
        #expect(result.stdout.contains("is not a plain file name inside the folder"))
    }

    @Test func aSymbolicLinkInsteadOfAFrozenFileIsRefused() throws {
        let (directory, folder) = try Self.copyOfPilots()
        defer { CLI.remove(directory) }
        try FileManager.default.removeItem(atPath: folder + "/2.0/ada.plist")
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/2.0/ada.plist", withDestinationPath: "/etc/passwd")
        let result = try CLI.run(["formats", "check", folder])
        Self.expectProblem(
            result, folder: folder,
            prefix: "FROZEN_FILE_CHANGED 2.0 2.0/ada.plist: is a symbolic link; a kit folder holds plain files")
    }

    @Test func aManifestNamingTooManyVersionsIsManifestInvalid() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        // 20,000 versions, listed: past the bound, refused before any is read.
        let listed: PropertyList = [
            "kit": 1, "collection": "pilots", "current": "20000.0",
            "versions": .array(Array(repeating: PropertyList.dictionary([:]), count: 20_000)),
        ]
        try Self.write(listed, to: directory + "/format.plist")
        var result = try CLI.run(["formats", "check", directory])
        Self.expectProblem(
            result, folder: directory,
            prefix: "MANIFEST_INVALID - format.plist: versions: names 20000 versions; at most 10000")
        // A binary manifest whose versions array claims 10^9 elements in a few bytes.
        let small: PropertyList = [
            "kit": 1, "collection": "pilots", "versions": .array((1...20).map { .integer(.init($0)) }),
        ]
        var bytes = try small.encoded(as: .binary)
        let header: [UInt8] = [0xAF, 0x10, 0x14]
        let at = try #require((0...(bytes.count - 3)).first { Array(bytes[$0..<$0 + 3]) == header })
        bytes.replaceSubrange(at..<at + 3, with: [0xAF, 0x12, 0x3B, 0x9A, 0xCA, 0x00])
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/format.plist"))
        result = try CLI.run(["formats", "check", directory])
        Self.expectProblem(result, folder: directory, prefix: "MANIFEST_INVALID - format.plist: ")
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    @Test func aFolderWithoutAManifestIsOneLine() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let result = try CLI.run(["formats", "check", directory])
        #expect(result.status == 1)
        #expect(result.stdout == "\(directory): MANIFEST_INVALID - format.plist: No such file\n")
    }

    // MARK: census and capture

    /// A store holding the frozen Pilots documents and a few others.
    static func makeStore(in directory: String) throws -> String {
        let db = directory + "/store.sqlite"
        let documents: [(String, String, String)] = [
            ("pilots", "ada-10", pilots + "/1.0/ada.plist"), ("pilots", "ada-11", pilots + "/1.1/ada.plist"),
            ("pilots", "ada-20", pilots + "/2.0/ada.plist"),
        ]
        for (collection, key, file) in documents {
            let result = try CLI.run(["db", "put", "--db", db, collection, key, file])
            #expect(result.status == 0, "\(result.stderr)")
        }
        // A 1.1 document whose hours are an integer (1.x wrote text), a 3.0, a 0.9, a 1.5 and another collection's.
        var odd = try #require(try PropertyList(binary: CLI.bytes(pilots + "/1.1/ada.plist")).dictionaryValue)
        var airplanes = try #require(odd["airplanes"]?.arrayValue)
        var airplane = try #require(airplanes[0].dictionaryValue)
        airplane["airframeHours"] = 7350
        airplanes[0] = .dictionary(airplane)
        odd["airplanes"] = .array(airplanes)
        let extra: [(String, String, PropertyList)] = [
            ("pilots", "odd-11", .dictionary(odd)),
            ("pilots", "future", ["majorVersion": 3, "minorVersion": 0, "name": "F"]),
            ("pilots", "ancient", ["majorVersion": 0, "minorVersion": 9, "name": "A"]),
            ("pilots", "middle", ["majorVersion": 1, "minorVersion": 5, "name": "M"]),
            ("logbooks", "x", ["majorVersion": 1, "minorVersion": 0, "pilot": "X"]),
        ]
        for (collection, key, value) in extra {
            let file = directory + "/\(key).plist"
            try Data(value.encoded(as: .binary)).write(to: URL(fileURLWithPath: file))
            let result = try CLI.run(["db", "put", "--db", db, collection, key, file])
            #expect(result.status == 0, "\(result.stderr)")
        }
        return db
    }

    @Test func theCensusCountsEveryStoredVersionAgainstTheHistory() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = try Self.makeStore(in: directory)
        let result = try CLI.run(["formats", "census", "--db", db, "--formats", Self.pilots])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                logbooks 1.0 1 -
                pilots 0.9 1 too-old
                pilots 1.0 1 frozen
                pilots 1.1 2 frozen (1 do not match the frozen shape)
                pilots 1.5 1 unknown
                pilots 2.0 1 current
                pilots 3.0 1 newer

                """)
    }

    @Test func theCensusRefusesABadFolderInOneLine() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let db = try Self.makeStore(in: directory)
        let result = try CLI.run(["formats", "census", "--db", db, "--formats", directory])
        #expect(result.status == 1)
        #expect(result.stderr == "\(directory): format.plist: No such file\n")
    }

    @Test func captureFreezesAStoredDocumentRedactedAndRefusesAnExistingName() throws {
        let (directory, folder) = try Self.copyOfPilots()
        defer { CLI.remove(directory) }
        let db = try Self.makeStore(in: directory)
        let arguments = [
            "formats", "capture", "--db", db, "pilots", "ada-11", folder, "--redact", "name",
            "--redact", "airplanes[].registration",
        ]
        var result = try CLI.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == folder + "/1.1/ada-11.plist\n")
        let captured = try PropertyList(binary: CLI.bytes(folder + "/1.1/ada-11.plist"))
        #expect(captured["name"] == "xxxxxxxxxxxxx")  // "Ada Lindqvist": the same length
        #expect(captured["airplanes"]?[0]?["registration"] == "xxxxxx")
        #expect(captured["airplanes"]?[0]?["model"] == "Piper PA-18 Super Cub")
        #expect(try CLI.run(["formats", "check", folder]).stdout == "\(folder): OK\n")
        result = try CLI.run(arguments)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "\(folder)/1.1/ada-11.plist: exists: a frozen file is never replaced; give another --name\n")
    }
}
