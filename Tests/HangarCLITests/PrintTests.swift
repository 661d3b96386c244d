import Testing

@Suite struct PrintTests {
    @Test(arguments: ["apple-cocoa-testdata.bplist", "rust-binary.bplist", "libplist-uid.bplist"])
    func printsLikePlutil(name: String) throws {
        let result = try CLI.run(["print", CLI.corpus + "/" + name])
        #expect(result.status == 0, "\(result.stderr)")
        try assertSnapshot(result.stdout, named: "print-\(name).txt")
    }

    @Test func helpIsStable() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        try assertSnapshot(result.stdout, named: "help.txt")
    }

    @Test func badFile() throws {
        let bad = CLI.corpus + "/invalid/cpython-utf16-lone-surrogate.bplist"
        let result = try CLI.run(["print", bad])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "\(bad): A UTF-16 string holds an unpaired surrogate at byte offset 8\n")
    }
}
