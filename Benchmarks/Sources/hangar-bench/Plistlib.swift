import Foundation

// Python's plistlib as a peer. It cannot run in this process, so a python3 child (`Scripts/plistlib-time.py`)
// reads the same file and times `plistlib.loads` / `plistlib.dumps` in its own loop, with the same warm-up and run
// counts as the row's other contenders, and hands its durations back; the harness runs it after the in-process
// rounds (so it does not take turns with them) and reports it in the same row group.

enum PlistlibOperation: String { case loads, dumps }
enum PlistlibFormat: String { case binary, xml }

/// The python3 version the plistlib rows ran on, once one has run.
nonisolated(unsafe) var plistlibPythonVersion: String?

func plistlibContender(_ operation: PlistlibOperation, _ format: PlistlibFormat, _ path: String) -> Contender {
    let call =
        operation == .loads
        ? "loads(fmt=FMT_\(format.rawValue.uppercased()))" : "dumps(fmt=FMT_\(format.rawValue.uppercased()))"
    var contender = Contender(name: "plistlib.\(call) [python3 child]", isOurs: false) {
        throw SetupError(description: "plistlib times itself in a child process")
    }
    contender.label = "plistlib*"
    contender.selfTimed = { warmUp, iterations in
        let script = BenchPaths.scripts + "/plistlib-time.py"
        let arguments = ["python3", script, operation.rawValue, format.rawValue, path, "\(warmUp)", "\(iterations)"]
        let result = try runChild("/usr/bin/env", arguments)
        guard result.status == 0,
            let report = try? JSONSerialization.jsonObject(with: result.output) as? [String: Any],
            let durations = report["durations_ns"] as? [Int], !durations.isEmpty
        else {
            throw SetupError(description: "python3 \(script) failed (exit status \(result.status))")
        }
        plistlibPythonVersion = report["python"] as? String
        return durations.map { Duration.nanoseconds($0) }
    }
    return contender
}
