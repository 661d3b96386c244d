import Foundation
import HangarTestSupport
import PropertyList
import Testing

/// `extract` and `type`, as `plutil` documents them, on the corpus's real files.
@Suite struct ExtractTests {
    static let entitlements = CLI.corpus + "/" + EditTests.entitlements
    static let infoPlist = CLI.corpus + "/" + EditTests.infoPlist

    @Test func rawPrintsScalarsBareCountsAndKeysInTheFilesOrder() throws {
        let cases: [([String], String)] = [
            (["com\\.apple\\.developer\\.networking\\.networkextension.1", "raw"], "app-proxy-provider\n"),
            (["com\\.apple\\.security\\.app-sandbox", "raw"], "true\n"),
            (["com\\.apple\\.developer\\.networking\\.networkextension", "raw"], "4\n"),
        ]
        for (arguments, expected) in cases {
            let result = try CLI.run(["extract"] + arguments + [Self.entitlements])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == expected, "\(arguments)")
        }
        let keys = try CLI.run(["extract", "com", "raw", Self.entitlements])
        #expect(keys.status == 1, "`com` is no key: the dots in the keys need escaping")
        let archive = try CLI.run(["extract", "$objects.1", "raw", "-n", CLI.corpus + "/apple-keyed-archive.bplist"])
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(!archive.stdout.hasSuffix("\n"))
    }

    @Test func rawOfADictionaryListsItsKeysInTheFilesOrder() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let path = directory + "/nested.plist"
        let text = """
            <plist version="1.0"><dict><key>outer</key><dict><key>zulu</key><integer>1</integer>\
            <key>alpha</key><date>2024-05-01T12:00:00Z</date><key>mike</key><data>AAEC</data>\
            <key>pi</key><real>3.25</real></dict></dict></plist>
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try CLI.run(["extract", "outer", "raw", path]).stdout == "zulu\nalpha\nmike\npi\n")
        #expect(try CLI.run(["extract", "outer", "raw", "-n", path]).stdout == "zulu\nalpha\nmike\npi")
        #expect(try CLI.run(["extract", "outer.alpha", "raw", path]).stdout == "2024-05-01T12:00:00Z\n")
        #expect(try CLI.run(["extract", "outer.mike", "raw", path]).stdout == "AAEC\n")
        #expect(try CLI.run(["extract", "outer.pi", "raw", path]).stdout == "3.25\n")
        let json = try CLI.run(["extract", "outer", "json", path])
        #expect(json.status == 1, "a date has no JSON form")
        #expect(json.stderr.hasPrefix("\(path): "))
    }

    @Test func xmlAndBinaryExtractsAreWholePropertyListsInTheFilesOrder() throws {
        let key = "com\\.apple\\.developer\\.networking\\.networkextension"
        let xml = try CLI.run(["extract", key, "xml1", Self.entitlements])
        #expect(xml.status == 0)
        #expect(
            xml.stdout == """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <array>
                \t<string>packet-tunnel-provider</string>
                \t<string>app-proxy-provider</string>
                \t<string>content-filter-provider</string>
                \t<string>dns-proxy</string>
                </array>
                </plist>

                """)
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let out = directory + "/top.bplist"
        let archive = CLI.corpus + "/apple-keyed-archive.bplist"
        #expect(try CLI.run(["extract", "$top", "binary1", "-o", out, archive]).status == 0)
        let whole = try PropertyList(binary: CLI.bytes(archive))
        #expect(try PropertyList(binary: CLI.bytes(out)) == whole["$top"])
        #expect(try PropertyList(binary: CLI.bytes(out)).dictionaryValue?.keys == whole["$top"]?.dictionaryValue?.keys)
    }

    @Test func typeAndExpect() throws {
        let file = Self.entitlements
        #expect(try CLI.run(["type", "com\\.apple\\.security\\.app-sandbox", file]).stdout == "bool\n")
        #expect(try CLI.run(["type", "com\\.apple\\.security\\.application-groups", "-n", file]).stdout == "array")
        #expect(try CLI.run(["type", "com\\.apple\\.security\\.application-groups.0", file]).stdout == "string\n")
        let matching = try CLI.run(["type", "com\\.apple\\.security\\.app-sandbox", "-expect", "bool", file])
        #expect(matching.status == 0 && matching.stdout == "bool\n")
        let mismatch = try CLI.run(["type", "com\\.apple\\.security\\.app-sandbox", "-expect", "string", file])
        #expect(mismatch.status == 1 && mismatch.stdout.isEmpty)
        #expect(
            mismatch.stderr
                == "\(file): The value at key path com\\.apple\\.security\\.app-sandbox is a bool, not a string\n")
        let extract = try CLI.run(["extract", "CFBundleName", "raw", "-expect", "integer", Self.infoPlist])
        #expect(extract.status == 1)
        #expect(extract.stderr == "\(Self.infoPlist): The value at key path CFBundleName is a string, not an integer\n")
        let missing = try CLI.run(["type", "a.b", file])
        #expect(missing.status == 1 && missing.stderr == "\(file): No value at key path a\n")
        let uid = try CLI.run(["type", "$top.root", CLI.corpus + "/apple-keyed-archive.bplist"])
        #expect(uid.stdout == "uid\n")
    }
}
