import Foundation
import HangarTestSupport

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

    /// Runs `executable` with `arguments` and returns what it printed.
    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessOutput {
        try ProcessRunner.run(executable, arguments)
    }
}
