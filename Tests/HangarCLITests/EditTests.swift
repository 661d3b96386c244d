import Foundation
import PropertyList
import Testing

/// `insert`, `replace`, `remove` and `create` on the corpus's real files, as `plutil` documents them: an edit
/// changes the lines it edits and nothing else (keys stay in the file's order), in place or to `-o`.
@Suite struct EditTests {
    /// An Info.plist as Xcode writes it (keys sorted, CF's layout).
    static let infoPlist = "wild/files/sparkle-project__Sparkle__Sparkle_Sparkle-Info.plist"
    /// An entitlements file: keys with dots, not sorted.
    static let entitlements =
        "wild/files/yonaskolb__XcodeGen__Tests_Fixtures_TestProject_Network_Extension_NetworkExtension.entitlements"

    /// A copy of the corpus file `name` in a new folder; `body` gets its path.
    static func withCopy(of name: String, _ body: (String) throws -> Void) throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/" + (name.split(separator: "/").last.map(String.init) ?? name)
        try FileManager.default.copyItem(atPath: CLI.corpus + "/" + name, toPath: path)
        try body(path)
    }

    static func text(_ path: String) -> String {
        String(decoding: CLI.bytes(path), as: UTF8.self)
    }

    static func replacing(_ old: String, with new: String, in text: String) throws -> String {
        try #require(text.contains(old), "the fixture holds \(old)")
        return text.replacing(old, with: new)
    }

    @Test func replaceChangesOneLineOfAnInfoPlist() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let before = Self.text(path)
            let result = try CLI.run(["replace", "CFBundleVersion", "-string", "42", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty)
            let expected = try Self.replacing(
                "<string>${CURRENT_PROJECT_VERSION}</string>", with: "<string>42</string>", in: before)
            #expect(Self.text(path) == expected)
        }
    }

    @Test func insertAddsTheKeyAtTheEndOfItsDictionary() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let before = Self.text(path)
            let result = try CLI.run(["insert", "SUFeedURL", "-string", "https://example.com/a&b", path])
            #expect(result.status == 0, "\(result.stderr)")
            let expected = try Self.replacing(
                "</dict>\n</plist>",
                with: "\t<key>SUFeedURL</key>\n\t<string>https://example.com/a&amp;b</string>\n</dict>\n</plist>",
                in: before)
            #expect(Self.text(path) == expected)
        }
    }

    @Test func escapedDotsNameKeysAndUnsortedKeysStayWhereTheyAre() throws {
        try Self.withCopy(of: Self.entitlements) { path in
            let before = Self.text(path)
            let replaced = try CLI.run(["replace", "com\\.apple\\.security\\.app-sandbox", "-bool", "NO", path])
            #expect(replaced.status == 0, "\(replaced.stderr)")
            let afterReplace = try Self.replacing("<true/>", with: "<false/>", in: before)
            #expect(Self.text(path) == afterReplace)
            let removed = try CLI.run(["remove", "com\\.apple\\.developer\\.networking\\.networkextension.1", path])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(
                Self.text(path)
                    == (try Self.replacing("\t\t<string>app-proxy-provider</string>\n", with: "", in: afterReplace)))
        }
    }

    @Test func insertAtAnArrayIndexAppendAndPastTheEnd() throws {
        try Self.withCopy(of: "go-array-16-items.bplist") { path in
            let original = try PropertyList(binary: CLI.bytes(path))
            var elements = try #require(original.arrayValue)
            #expect(try CLI.run(["insert", "3", "-string", "at three", path]).status == 0)
            #expect(try CLI.run(["insert", "17", "-integer", "-5", path]).status == 0, "the count appends")
            elements.insert("at three", at: 3)
            elements.append(-5)
            let edited = CLI.bytes(path)
            #expect(edited.starts(with: Array("bplist00".utf8)), "still binary")
            #expect(try PropertyList(binary: edited) == .array(elements))
            let past = try CLI.run(["insert", "19", "-bool", "YES", path])
            #expect(past.status == 1)
            #expect(past.stderr == "\(path): Index 19 is past the end of the array at the root (18 values)\n")
            #expect(CLI.bytes(path) == edited, "a failed edit leaves the file alone")
        }
    }

    @Test func insertRefusesAnExistingKeyAndReplaceAddsAMissingOne() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let before = CLI.bytes(path)
            let insert = try CLI.run(["insert", "CFBundleName", "-string", "x", path])
            #expect(insert.status == 1)
            #expect(insert.stderr == "\(path): A value already exists at key path CFBundleName\n")
            #expect(CLI.bytes(path) == before)
            #expect(try CLI.run(["replace", "LSMinimumSystemVersion", "-string", "10.13", path]).status == 0)
            let keys = try PropertyList.decode(CLI.bytes(path)).value.dictionaryValue?.keys
            #expect(keys?.last == "LSMinimumSystemVersion")
        }
    }

    @Test func appendAddsToTheArrayAtTheKeyPath() throws {
        try Self.withCopy(of: Self.entitlements) { path in
            let key = "com\\.apple\\.security\\.application-groups"
            let result = try CLI.run(["insert", key, "-string", "group.two", "-append", path])
            #expect(result.status == 0, "\(result.stderr)")
            let value = try PropertyList(xml: CLI.bytes(path))
            #expect(
                value["com.apple.security.application-groups"]
                    == ["$(TeamIdentifierPrefix)com.example.app-group", "group.two"])
            let notArray = try CLI.run([
                "insert", "com\\.apple\\.security\\.app-sandbox", "-string", "x", "-append", path,
            ])
            #expect(notArray.status == 1)
            #expect(
                notArray.stderr
                    == "\(path): -append needs an array at key path com\\.apple\\.security\\.app-sandbox, "
                    + "which holds a bool\n")
        }
    }

    @Test func missingKeyPathsNameTheStepThatFailed() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let remove = try CLI.run(["remove", "NoSuchKey", path])
            #expect(remove.status == 1)
            #expect(remove.stderr == "\(path): No value at key path NoSuchKey\n")
            let deep = try CLI.run(["replace", "Missing.deeper.still", "-integer", "1", path])
            #expect(deep.stderr == "\(path): No value at key path Missing\n")
            let throughAString = try CLI.run(["replace", "CFBundleName.x", "-integer", "1", path])
            #expect(throughAString.stderr == "\(path): No value at key path CFBundleName.x\n")
        }
    }

    @Test func aValueThatDoesNotParseAsItsTypeFails() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let before = CLI.bytes(path)
            for (type, text) in [("integer", "12a"), ("bool", "maybe"), ("date", "yesterday"), ("data", "***")] {
                let result = try CLI.run(["replace", "X", "-" + type, text, path])
                #expect(result.status == 1)
                #expect(result.stderr == "\(path): \"\(text)\" is not a valid -\(type) value\n")
            }
            let json = try CLI.run(["replace", "X", "-json", "{\"a\":", path])
            #expect(json.status == 1)
            #expect(json.stderr.hasPrefix("\(path): The -json value is not a property list: "))
            #expect(CLI.bytes(path) == before)
        }
    }

    @Test func aDateCannotGoIntoJSON() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/settings.json"
        try Data("{\"b\":1,\"a\":2}".utf8).write(to: URL(fileURLWithPath: path))
        let date = try CLI.run(["insert", "when", "-date", "2024-05-01T12:00:00Z", path])
        #expect(date.status == 1)
        #expect(date.stderr.hasPrefix("\(path): A date cannot be written as JSON"), "\(date.stderr)")
        #expect(Self.text(path) == "{\"b\":1,\"a\":2}", "the file is left alone")
        #expect(try CLI.run(["insert", "c", "-json", "{\"z\":[true],\"y\":0.5}", path]).status == 0)
        #expect(Self.text(path) == "{\"b\":1,\"a\":2,\"c\":{\"z\":[true],\"y\":0.5}}")
    }

    @Test func usageErrorsExit64() throws {
        let file = CLI.corpus + "/" + Self.infoPlist
        for arguments in [
            ["insert", "X", "-string", "a", "-integer", "1", file],
            ["insert", "X", file],
            ["replace", "X", "-string", "a", file, file, "-o", "/tmp/out.plist"],
            ["extract", "X", "xml2", file],
            ["type", "X", "-expect", "number", file],
            ["remove", "X"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("hangar: "), "\(arguments)")
        }
    }

    @Test func outputGoesToOUTOrStandardOutputAndTheFileStaysAlone() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            let before = CLI.bytes(path)
            let out = path + ".edited"
            #expect(try CLI.run(["remove", "NSPrincipalClass", path, "-o", out]).status == 0)
            #expect(CLI.bytes(path) == before)
            let expected = try Self.replacing(
                "\t<key>NSPrincipalClass</key>\n\t<string></string>\n", with: "", in: Self.text(path))
            #expect(Self.text(out) == expected)
            let standardOutput = try CLI.run(["remove", "NSPrincipalClass", path, "-o", "-"])
            #expect(standardOutput.stdout == expected)
        }
    }

    @Test func aReadOnlyFileInAWritableFolderIsReplacedAndStaysReadOnly() throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            let result = try CLI.run(["replace", "CFBundleName", "-string", "Renamed", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try PropertyList(xml: CLI.bytes(path))["CFBundleName"] == "Renamed")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o444)
            #expect(try FileManagerList.names(in: (path as NSString).deletingLastPathComponent).count == 1)
        }
    }

    @Test func severalFilesAreEditedEachAndABadOneIsReported() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let first = try CLI.copy("swift-empty-dict.bplist", to: directory)
        let second = directory + "/second.plist"
        try FileManager.default.copyItem(atPath: CLI.corpus + "/" + Self.infoPlist, toPath: second)
        let missing = directory + "/missing.plist"
        let result = try CLI.run(["insert", "Added", "-integer", "7", first, missing, second])
        #expect(result.status == 1)
        #expect(result.stderr == "\(missing): No such file or directory\n")
        #expect(try PropertyList(binary: CLI.bytes(first)) == ["Added": 7])
        #expect(try PropertyList(xml: CLI.bytes(second))["Added"] == 7)
    }

    @Test(arguments: ["xml1", "binary1", "json"])
    func createWritesAnEmptyDictionaryOverTheFile(format: String) throws {
        try Self.withCopy(of: Self.infoPlist) { path in
            #expect(try CLI.run(["create", format, path]).status == 0)
            let written = try PropertyList.decode(CLI.bytes(path))
            #expect(written.value == [:])
            #expect(written.format == ["xml1": .xml, "binary1": .binary, "json": .json][format])
        }
    }
}
