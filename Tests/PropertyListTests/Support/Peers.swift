import Foundation

/// Real peer programs for interop tests: CPython's `plistlib` and libplist's `plistutil`.
///
/// A peer that is missing turns its tests into skips that say so (`.enabled(if:)` with a reason) and a
/// warning on stderr, never a silent pass. `.ci/run` installs both.
enum Peers {
    /// The path of `python3`, if it runs.
    static let python3: String? = locate("python3")
    /// The path of `plistutil` (Debian's `libplist-utils`), if it runs.
    static let plistutil: String? = locate("plistutil")

    private static func locate(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        FileHandle.standardError.write(Data("WARNING: \(name) not found on PATH: its interop tests are SKIPPED\n".utf8))
        return nil
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `executable` with `arguments` and returns what it printed.
    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
