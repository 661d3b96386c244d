import Foundation
import Testing

/// Runs the built `hangar` executable as a real process.
enum CLI {
    /// The repository root: this file is Tests/HangarCLITests/Support/CLI.swift.
    static let repositoryRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    /// `Tests/Corpus`, the conformance corpus (files other projects wrote; see its MANIFEST.md).
    static let corpus = repositoryRoot + "/Tests/Corpus"

    /// `hangar` sits beside the test bundle in the build folder.
    static let executable: String = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // The runner may be inside Foo.xctest/Contents/MacOS on Apple platforms.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("hangar").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot + "/.build/debug/hangar"
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let stdoutBytes: [UInt8]
    }

    static func run(_ arguments: [String], stdin: [UInt8]? = nil, in directory: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full stderr cannot block the child.
        let errData = ErrorCollector(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errData.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self),
            stdoutBytes: [UInt8](outData))
    }

    /// Runs `script` with `/bin/sh` (for `ulimit` and other shell-only set-up around `hangar`).
    static func runShell(_ script: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "",
            stdoutBytes: [UInt8](data))
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "hangar-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
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
    let path = CLI.repositoryRoot + "/Tests/HangarCLITests/Snapshots/" + name
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

/// Drains a pipe on its own thread, so a child that fills stderr cannot block while stdout is read.
private final class ErrorCollector: @unchecked Sendable {
    private(set) var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Waits until the pipe is closed; `data` is complete after this returns.
    func wait() {
        done.wait()
    }
}
