import Testing

@Suite struct LintTests {
    @Test func goodFilesSayOK() throws {
        let a = CLI.corpus + "/apple-cocoa-testdata.bplist"
        let b = CLI.corpus + "/rust-utf16.bplist"
        let result = try CLI.run(["lint", a, b])
        #expect(result.status == 0)
        #expect(result.stdout == "\(a): OK\n\(b): OK\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func badFileSaysWhyOnStandardErrorAndExitsOne() throws {
        let good = CLI.corpus + "/swift-empty-dict.bplist"
        let bad = CLI.corpus + "/invalid/gen-cycle-self-array.bplist"
        let result = try CLI.run(["lint", good, bad])
        #expect(result.status == 1)
        #expect(result.stdout == "\(good): OK\n")
        #expect(result.stderr == "\(bad): Object 0 contains itself (a reference cycle) at byte offset 9\n")
    }

    @Test func missingFile() throws {
        let result = try CLI.run(["lint", "/nonexistent/file.plist"])
        #expect(result.status == 1)
        #expect(result.stderr == "/nonexistent/file.plist: No such file or directory\n")
    }

    @Test func directoryIsNotAFile() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let result = try CLI.run(["lint", directory])
        #expect(result.status == 1)
        #expect(result.stderr == "\(directory): Is a directory\n")
    }

    @Test func standardInput() throws {
        let bytes = CLI.bytes(CLI.corpus + "/swift-empty-dict.bplist")
        let result = try CLI.run(["lint", "-"], stdin: bytes)
        #expect(result.status == 0)
        #expect(result.stdout == "-: OK\n")
    }

    @Test func emptyFileIsRefused() throws {
        let result = try CLI.run(["lint", "-"], stdin: [])
        #expect(result.status == 1)
        #expect(result.stderr == "-: The input is empty at byte offset 0\n")
    }

    @Test func everyHostileCorpusFileFailsCleanly() throws {
        let names = try FileManagerList.names(in: CLI.corpus + "/invalid")
        #expect(names.count >= 29)
        for name in names {
            let result = try CLI.run(["lint", CLI.corpus + "/invalid/" + name])
            if name == "cpython-ascii-invalid-byte.bplist" {
                // The one file there that is read: an ASCII string's byte 0xFF is ÿ, as CF reads it.
                #expect(result.status == 0, "\(name)")
                continue
            }
            #expect(result.status == 1, "\(name)")
            #expect(result.stderr.hasPrefix(CLI.corpus + "/invalid/" + name + ": "), "\(name)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        }
    }
}
