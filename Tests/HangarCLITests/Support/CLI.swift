import Foundation
import HangarTestSupport
import Testing

/// Runs the built `hangar` executable as a real process.
enum CLI {
    /// `Tests/Corpus`, the conformance corpus (files other projects wrote; see its MANIFEST.md).
    static let corpus = repositoryRoot + "/Tests/Corpus"

    /// `hangar` sits beside the test bundle in the build folder.
    static let executable =
        ProcessRunner.builtExecutable(named: "hangar") ?? repositoryRoot + "/.build/debug/hangar"

    typealias Result = ProcessOutput

    static func run(_ arguments: [String], stdin: [UInt8]? = nil, in directory: String? = nil) throws -> Result {
        try ProcessRunner.run(executable, arguments, stdin: stdin, in: directory)
    }

    /// Runs `script` with `/bin/sh` (for `ulimit` and other shell-only set-up around `hangar`).
    static func runShell(_ script: String) throws -> Result {
        try ProcessRunner.run("/bin/sh", ["-c", script])
    }

    static func temporaryDirectory() throws -> String {
        try ScratchFolders.make("hangar-cli")
    }

    /// Removes a folder ``temporaryDirectory()`` made, with everything in it.
    static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func copy(_ corpusName: String, to directory: String) throws -> String {
        let destination = directory + "/" + corpusName
        try FileManager.default.copyItem(atPath: corpus + "/" + corpusName, toPath: destination)
        return destination
    }

    static func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }
}

/// Compares `actual` with the golden file Snapshots/NAME; `HANGAR_RECORD_SNAPSHOTS=1` writes it instead.
func assertSnapshot(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = repositoryRoot + "/Tests/HangarCLITests/Snapshots/" + name
    if ProcessInfo.processInfo.environment["HANGAR_RECORD_SNAPSHOTS"] == "1" {
        try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
        return
    }
    guard let expected = FileManager.default.contents(atPath: path) else {
        Issue.record(
            "No snapshot \(name); run with HANGAR_RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == String(decoding: expected, as: UTF8.self), "snapshot \(name)", sourceLocation: sourceLocation)
}
