import Foundation
import HangarTestSupport
import Synchronization
import Testing

/// A real `hangar studio` process: started, its one line read, stopped with a signal.
final class StudioProcess: Sendable {
    /// `hangar` sits beside the test bundle in the build folder.
    static let executable = ProcessRunner.builtExecutable(named: "hangar") ?? repositoryRoot + "/.build/debug/hangar"

    let process: Process
    /// The URL the studio printed (with its token).
    let url: String
    /// Everything it printed on standard output.
    private let output = OutputBuffer()
    private let errors = OutputBuffer()

    /// Starts `hangar studio ARGUMENTS` and waits (at most `timeout` seconds) for its line.
    init(_ arguments: [String], timeout: TimeInterval = 60) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["studio"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let output = self.output
        let errors = self.errors
        out.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        err.fileHandleForReading.readabilityHandler = { handle in errors.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var line: String?
        while Date() < deadline, process.isRunning {
            let text = String(decoding: output.bytes, as: UTF8.self)
            if let end = text.firstIndex(of: "\n") {
                line = String(text[..<end])
                break
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard let line, line.hasPrefix("studio: ") else {
            process.terminate()
            throw StudioDidNotStart(stderr: String(decoding: errors.bytes, as: UTF8.self))
        }
        url = String(line.dropFirst("studio: ".count))
    }

    /// What it printed on standard output so far.
    var standardOutput: String { String(decoding: output.bytes, as: UTF8.self) }
    /// What it printed on standard error so far.
    var standardError: String { String(decoding: errors.bytes, as: UTF8.self) }

    /// Sends `signal` and waits at most `timeout` seconds; the exit status, or `nil` when it did not exit (it is
    /// then killed).
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 10) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    struct StudioDidNotStart: Error, CustomStringConvertible {
        let stderr: String
        var description: String { "hangar studio printed no `studio:` line; stderr: \(stderr)" }
    }
}

/// Bytes a pipe's reader appends to while the test reads them.
final class OutputBuffer: Sendable {
    private let storage = Mutex<[UInt8]>([])

    func append(_ data: Data) { storage.withLock { $0 += data } }

    var bytes: [UInt8] { storage.withLock { $0 } }
}

/// The browser the tests drive: Debian's chromium and chromedriver, and selenium for Python.
enum Browser {
    /// `Tests/HangarStudioTests/Browser/studio_browser.py`.
    static let script = repositoryRoot + "/Tests/HangarStudioTests/Browser/studio_browser.py"
    /// Where the screenshots go (one folder per test).
    static let screenshots = repositoryRoot + "/.build/studio-screenshots"

    /// Whether the browser tests must run (`HANGAR_REQUIRE_BROWSER=1`, as `.ci/run` sets): then a missing browser
    /// fails them instead of skipping them.
    static let isRequired = ProcessInfo.processInfo.environment["HANGAR_REQUIRE_BROWSER"] == "1"

    /// Why no browser can be driven here, or `nil` when one can.
    static let missing: String? = {
        let chromium = ProcessInfo.processInfo.environment["HANGAR_CHROMIUM"] ?? "/usr/bin/chromium"
        let driver = ProcessInfo.processInfo.environment["HANGAR_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        for path in [chromium, driver] where !FileManager.default.isExecutableFile(atPath: path) {
            return "\(path) is missing (apt-get install chromium chromium-driver)"
        }
        guard let probe = try? ProcessRunner.run("/usr/bin/env", ["python3", "-c", "import selenium"]),
            probe.status == 0
        else { return "python3 cannot import selenium (pip install selenium)" }
        return nil
    }()

    /// Whether the browser tests run: where a browser can be driven, and wherever they are required (so that a
    /// missing browser fails them there, in ``require()``).
    static var shouldRun: Bool {
        guard let missing, !isRequired else { return true }
        warnOnce(missing)
        return false
    }

    /// Why the browser tests are skipped here, as Swift Testing shows it beside each skipped test.
    static var skipReason: Comment {
        Comment(
            rawValue:
                "SKIPPED: no browser to drive: \(missing ?? "none missing") (HANGAR_REQUIRE_BROWSER=1 fails instead)")
    }

    /// Throws when no browser can be driven here: a browser test reaches this only when the browser is there or
    /// required (``shouldRun``), so it fails under `HANGAR_REQUIRE_BROWSER=1` without one.
    static func require() throws {
        if let missing { throw BrowserMissing(reason: missing) }
    }

    struct BrowserMissing: Error, CustomStringConvertible {
        let reason: String
        var description: String { "HANGAR_REQUIRE_BROWSER=1, but \(reason)" }
    }

    /// The one SKIPPED line on standard error, however many browser tests are skipped.
    private static let warned = Mutex(false)

    private static func warnOnce(_ missing: String) {
        let first = warned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        FileHandle.standardError.write(
            Data("WARNING: Hangar Studio's browser tests are SKIPPED: \(missing)\n".utf8))
    }

    /// Runs scenario `name` of the script against `studio`; records an issue with its output when it fails.
    @discardableResult
    static func run(
        _ name: String, _ studio: StudioProcess, shots: String, expect: [String: Any] = [:], extra: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessOutput {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: expect), as: UTF8.self)
        let folder = screenshots + "/" + shots
        let result = try ProcessRunner.run(
            "/usr/bin/env",
            ["python3", script, name, "--url", studio.url, "--shots", folder, "--expect", json] + extra)
        print(result.stdout, terminator: "")
        #expect(
            result.status == 0, "\(name): \(result.stderr)\nstudio's stderr: \(studio.standardError)",
            sourceLocation: sourceLocation)
        return result
    }
}

extension Trait where Self == ConditionTrait {
    /// A browser test: run where a browser can be driven or `HANGAR_REQUIRE_BROWSER=1` requires one, and skipped,
    /// saying why (``Browser/skipReason``), otherwise.
    static var browser: Self { .enabled(if: Browser.shouldRun, Browser.skipReason) }
}
