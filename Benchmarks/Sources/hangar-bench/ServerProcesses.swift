import Dispatch
import Foundation
import LoadReport
import Synchronization

// The `server` section's processes: servers started as real processes (standard output read for their
// `listening on http://HOST:PORT` line, standard error to a log file), and the load generator run to its end.

struct ServerSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The executables of the section: `pilots-server` (the examples package's release build, Examples/Pilots, or
/// `$PILOTS_SERVER_BIN`), and `pilots-baseline-server` and `hangar-load` beside this executable (this package's
/// build).
struct ServerExecutables {
    var hangar: String
    var baseline: String
    var load: String

    /// The release `pilots-server` of the examples' package, or `$PILOTS_SERVER_BIN`.
    static var pilotsServer: String {
        ProcessInfo.processInfo.environment["PILOTS_SERVER_BIN"]
            ?? URL(fileURLWithPath: BenchPaths.benchmarks + "/../Examples/Pilots/.build/release/pilots-server")
            .standardizedFileURL.path
    }

    /// The three executables, or the reason the section is skipped.
    static func locate() -> Result<ServerExecutables, ServerSetupError> {
        let manager = FileManager.default
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let found = ServerExecutables(
            hangar: pilotsServer, baseline: own.appendingPathComponent("pilots-baseline-server").path,
            load: own.appendingPathComponent("hangar-load").path)
        for path in [found.hangar, found.baseline, found.load] where !manager.isExecutableFile(atPath: path) {
            return .failure(ServerSetupError("\(path) is missing (see README.md, \"The server rows\", to build it)"))
        }
        return .success(found)
    }
}

/// A server process and the address it said it listens on; stopped with SIGTERM (SIGKILL after 10 s).
final class ServerProcess {
    let name: String
    let url: String
    private let process: Process
    private let logPath: String

    /// Starts `executable` with `arguments` plus `--port 0` and waits (up to 60 s) for its `listening on` line.
    init(name: String, executable: String, arguments: [String], logPath: String) throws {
        self.name = name
        self.logPath = logPath
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + ["--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw ServerSetupError("cannot create \(logPath)")
        }
        process.standardError = FileHandle(forWritingAtPath: logPath)
        let lines = SharedText()
        let listening = DispatchSemaphore(value: 0)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                listening.signal()
                return
            }
            let text = lines.text.withLock { lines in
                lines += String(decoding: data, as: UTF8.self)
                return lines
            }
            if text.contains("listening on http://") && text.contains("\n") { listening.signal() }
        }
        try process.run()
        self.process = process
        let ready = listening.wait(timeout: .now() + 60)
        let text = lines.text.withLock { $0 }
        guard ready == .success, let start = text.range(of: "listening on http://") else {
            process.terminate()
            throw ServerSetupError("\(name) did not say where it listens within 60 s; see \(logPath): \(text)")
        }
        let address = text[start.upperBound...].prefix { !$0.isWhitespace }
        url = "http://" + address
    }

    /// Stops the server: SIGTERM, then SIGKILL if it is still running after 10 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The end of the server's standard error, for a failure report.
    var logTail: String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(2_000))
    }

    deinit { stop() }
}

/// Text that a pipe's reader appends to on its own thread.
private final class SharedText: Sendable {
    let text = Mutex("")
}

/// Runs `hangar-load` to its end and reads its report.
func runLoadGenerator(_ executable: String, _ arguments: [String]) throws -> LoadReport {
    let result = try runChild(executable, arguments, passingStandardError: true)
    guard result.status == 0 else {
        throw ServerSetupError("hangar-load \(arguments.joined(separator: " ")) failed (exit status \(result.status))")
    }
    do {
        return try JSONDecoder().decode(LoadReport.self, from: result.output)
    } catch {
        throw ServerSetupError("hangar-load printed no report: \(String(decoding: result.output, as: UTF8.self))")
    }
}
