import Foundation

// wrk beside hangar-load: the same two workloads from a load generator nobody here wrote, run right after
// hangar-load's row against the same servers (already warm), when `wrk` is on PATH (Debian's `wrk` package).

/// What one wrk row measured.
struct WrkReport {
    /// Operations per second (an update is a GET and a PUT: half the requests).
    var perSecond: Double
    /// Responses neither 2xx nor 3xx (for updates, mostly 412s: an If-Match lost to another connection).
    var non2xx: Int
}

/// Runs wrk with a Lua script per workload, written into the run's folder.
struct WrkRunner {
    let executable: String
    let directory: String
    let pilots: Int

    /// The runner, when `wrk` is on PATH.
    static func locate(directory: String, pilots: Int) -> WrkRunner? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/wrk"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return WrkRunner(executable: candidate, directory: directory, pilots: pilots)
            }
        }
        return nil
    }

    /// Loads `urls` with `workload` for `seconds` with `connections` in all (split between the URLs, one wrk
    /// process each, run at once) and sums their rates.
    func run(_ workload: ServerWorkload, urls: [String], connections: Int, seconds: Double) throws -> WrkReport {
        let script = directory + "/wrk-\(workload.loadName).lua"
        try Self.script(workload, pilots: pilots).write(toFile: script, atomically: true, encoding: .utf8)
        var running: [(Process, Pipe)] = []
        for url in urls {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            // A wrk thread has one Lua state for all its connections, so the update's GET-then-PUT state needs a
            // thread per connection; GETs keep no state and run on two threads (`wrk -t2 -c16`, as the server rows
            // are measured from outside).
            let perURL = max(1, connections / urls.count)
            process.arguments = [
                "-t\(workload == .update ? perURL : min(2, perURL))", "-c\(perURL)", "-d\(Int(seconds.rounded()))s",
                "-s", script,
                url,
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            running.append((process, output))
        }
        var report = WrkReport(perSecond: 0, non2xx: 0)
        for (process, output) in running {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let requests = Self.number(after: "Requests/sec:", in: text) else {
                throw ServerSetupError("wrk failed (exit status \(process.terminationStatus)): \(text)")
            }
            report.perSecond += workload == .update ? requests / 2 : requests
            report.non2xx += Int(Self.number(after: "Non-2xx or 3xx responses:", in: text) ?? 0)
        }
        return report
    }

    /// The number after `label` on its line of wrk's summary.
    static func number(after label: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(label) else { continue }
            return Double(trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The Lua script: GET of random pilots (`p0` … as hangar-load seeds them), or a GET then a PUT of the body read
    /// with `If-Match` of its ETag (one operation, as hangar-load's update; wrk then sends one request at a time per
    /// connection, as a client that waits for each answer does, and runs one thread per connection, as its Lua state
    /// is per thread).
    static func script(_ workload: ServerWorkload, pilots: Int) -> String {
        let common = """
            local pilots = \(pilots)
            local counter = 1
            function setup(thread)
              thread:set("id", counter)
              counter = counter + 1
            end
            function init(args)
              math.randomseed(id * 7919)
            end

            """
        switch workload {
        case .get:
            return common + """
                function request()
                  return wrk.format("GET", "/pilots/p" .. math.random(0, pilots - 1), {["Accept"] = "application/x-plist"})
                end
                """
        case .update:
            return common + """
                local key, etag, body
                local putting = false
                function request()
                  if putting then
                    return wrk.format("PUT", "/pilots/" .. key,
                      {["If-Match"] = etag, ["Content-Type"] = "application/x-plist", ["Accept"] = "application/x-plist"},
                      body)
                  end
                  key = "p" .. math.random(0, pilots - 1)
                  return wrk.format("GET", "/pilots/" .. key, {["Accept"] = "application/x-plist"})
                end
                function response(status, headers, answer)
                  if not putting and status == 200 then
                    etag = headers["ETag"] or headers["etag"] or headers["Etag"]
                    body = answer
                    putting = etag ~= nil
                  else
                    putting = false
                  end
                end
                """
        }
    }
}
