import Foundation
import Testing

@Suite struct ConvertTests {
    @Test func inPlaceIsAtomicAndLeavesNoTemporaryFile() throws {
        let directory = try CLI.temporaryDirectory()
        let path = try CLI.copy("libplist-off8bytes.bplist", to: directory)
        let before = CLI.bytes(path)
        let result = try CLI.run(["convert", "binary1", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let after = CLI.bytes(path)
        // Rewritten with 1-byte offsets: smaller, same content.
        #expect(after.count < before.count)
        #expect(try FileManagerList.names(in: directory) == ["libplist-off8bytes.bplist"])
    }

    @Test func outputToStandardOutput() throws {
        let source = CLI.corpus + "/apple-cocoa-testdata.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", "-"])
        #expect(result.status == 0)
        #expect(result.stdoutBytes == CLI.bytes(source), "Cocoa's bytes, reproduced")
    }

    @Test func outputToAnotherFile() throws {
        let directory = try CLI.temporaryDirectory()
        let source = CLI.corpus + "/go-array-16-items.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", directory + "/out.plist"])
        #expect(result.status == 0)
        #expect(CLI.bytes(directory + "/out.plist") == CLI.bytes(source))
    }

    @Test func badInputLeavesTheFileAlone() throws {
        let directory = try CLI.temporaryDirectory()
        let path = directory + "/bad.plist"
        let original = CLI.bytes(CLI.corpus + "/invalid/cpython-date-nan.bplist")
        try Data(original).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["convert", "xml1", path])
        #expect(result.status == 1)
        #expect(result.stderr == "\(path): A date is nan, not a finite time at byte offset 8\n")
        #expect(CLI.bytes(path) == original)
        #expect(try FileManagerList.names(in: directory) == ["bad.plist"])
    }

    @Test func unwritableDestination() throws {
        let source = CLI.corpus + "/swift-empty-dict.bplist"
        let result = try CLI.run(["convert", "binary1", source, "-o", "/nonexistent/dir/out.plist"])
        #expect(result.status == 1)
        #expect(result.stderr == "/nonexistent/dir: No such file or directory\n")
    }

    @Test func unknownFormatIsAUsageError() throws {
        let result = try CLI.run(["convert", "xml2", CLI.corpus + "/swift-empty-dict.bplist"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("xml2"))
    }
}
