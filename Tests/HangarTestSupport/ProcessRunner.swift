import Foundation

/// What a finished process printed, and how it ended.
public struct ProcessOutput: Sendable {
    /// The exit status (or the signal number, if a signal ended it).
    public let status: Int32
    /// Standard output, decoded as UTF-8 (invalid bytes replaced).
    public let stdout: String
    /// Standard error, decoded as UTF-8 (invalid bytes replaced).
    public let stderr: String
    /// Standard output, byte for byte.
    public let stdoutBytes: [UInt8]
    /// Whether a signal ended the process (a crash: a trap, an abort, a segmentation fault) rather than an exit.
    public var signaled = false
}

/// Runs real programs for the tests: the package's own executables and the peers they are compared with.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` to its end and returns what it printed; throws when it cannot start.
    ///
    /// `stdin`, if any, is written to the child's standard input, which is then closed (at once when nil);
    /// `directory`, if any, is the child's working directory (the test runner's otherwise).
    public static func run(
        _ executable: String, _ arguments: [String], stdin: [UInt8]? = nil, in directory: String? = nil
    ) throws -> ProcessOutput {
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
        return ProcessOutput(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self),
            stdoutBytes: [UInt8](outData), signaled: process.terminationReason == .uncaughtSignal)
    }

    /// The path of the package's executable `name` (a product the test target depends on), which SwiftPM builds
    /// beside the test bundle; nil when it is not there.
    public static func builtExecutable(named name: String) -> String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // The runner may be inside Foo.xctest/Contents/MacOS on Apple platforms.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
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
