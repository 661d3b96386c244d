import Foundation
import HangarTestSupport
import PropertyList

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `pilots-server` child process on a free loopback port.
final class ServerProcess: Sendable {
    let child: ChildProcess
    /// `http://127.0.0.1:PORT`, from its `listening on` line.
    let baseURL: String

    static let executable = ProcessRunner.builtExecutable(named: "pilots-server") ?? "pilots-server"

    /// Starts `pilots-server --port PORT arguments…` (0: a free one), its standard error going into `directory`,
    /// and waits for the one line it prints on standard output once it accepts connections.
    init(_ arguments: [String], directory: String, port: Int = 0) throws {
        let log = directory + "/server-\(UUID().uuidString).log"
        child = try ChildProcess(["--port", String(port)] + arguments, stderrPath: log, executable: Self.executable)
        guard child.waitForOutput(containing: "\n", timeout: 30) else {
            child.killAndWait()
            throw HarnessFailure("pilots-server did not start: \(child.standardError)")
        }
        let line = child.outputSoFar.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("listening on http://127.0.0.1:"), !line.hasSuffix(":0") else {
            child.killAndWait()
            throw HarnessFailure("unexpected first line \(line.debugDescription): \(child.standardError)")
        }
        baseURL = String(line.dropFirst("listening on ".count))
    }

    /// The URL of `path` (which starts with `/`).
    func url(_ path: String) -> String { baseURL + path }

    /// Sends SIGTERM and waits up to 15 seconds; returns the wait status (0: exited with status 0), or -1 when
    /// it did not stop in time (it is then killed).
    @discardableResult
    func terminate() -> Int32 {
        kill(child.pid, SIGTERM)
        if let status = child.waitForExit(timeout: 15) { return status }
        child.killAndWait()
        return -1
    }

    /// Sends SIGKILL and waits.
    func kill9() { child.killAndWait() }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A folder of its own for one test, removed at the end.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "pilots-server-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// An HTTP response as curl received it.
struct HTTPReply: Sendable {
    let status: Int
    /// Header values by lowercased name (the last of repeated ones).
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var etag: String? { headers["etag"] }
}

/// A real HTTP client: curl, one process per request.
enum HTTP {
    static let curl: String = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").map { "\($0)/curl" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        return found ?? "/usr/bin/curl"
    }()

    /// Sends one request. A header with an empty value is left out (`Accept:` removes curl's own).
    static func send(
        _ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) throws -> HTTPReply {
        let directory = try TemporaryDirectory()
        let headerFile = directory.path + "/headers"
        let bodyFile = directory.path + "/body"
        // `--head` for HEAD: `-X HEAD` would wait for the body the Content-Length announces.
        var arguments = (method == "HEAD" ? ["-sS", "--head"] : ["-sS", "-X", method])
        arguments += ["-D", headerFile, "-o", bodyFile, "-H", "Expect:"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            arguments += ["-H", value.isEmpty ? "\(name):" : "\(name): \(value)"]
        }
        if body != nil { arguments += ["--data-binary", "@-"] }
        arguments.append(url)
        let output = try ProcessRunner.run(curl, arguments, stdin: body)
        guard output.status == 0 else { throw HarnessFailure("curl \(method) \(url): \(output.stderr)") }
        let head = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        let block = head.components(separatedBy: "\r\n\r\n").last(where: { !$0.isEmpty }) ?? ""
        var lines = block.components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bytes = FileManager.default.contents(atPath: bodyFile).map { [UInt8]($0) } ?? []
        return HTTPReply(status: status, headers: fields, body: bytes)
    }

    /// A live `curl -N` reading server-sent events from `url`, its output read as it comes.
    static func follow(_ url: String, headers: [String: String] = [:], directory: String) throws -> ChildProcess {
        var arguments = ["-sS", "-N", "-H", "Accept: text/event-stream"]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        arguments.append(url)
        return try ChildProcess(
            arguments, stderrPath: directory + "/curl-\(UUID().uuidString).log", executable: curl)
    }
}

/// Pilot documents as clients send them.
enum Pilots {
    /// A 2.0 pilot with one powered airplane, its hours `hours`.
    static func document(name: String, hours: Int = 100, airfield: String = "ESSB") -> PropertyList {
        [
            "majorVersion": 2, "minorVersion": 0, "name": .string(name), "licenseNumber": "SE-PPL-0042",
            "dateOfBirth": .date(-534_384_000.5), "homeAirfield": .string(airfield),
            "airplanes": [
                [
                    "class": "PoweredAirplane", "model": "Cessna 172S", "registrationNumber": "SE-KMP",
                    "airframeHours": .integer(.init(hours)), "engineHorsepower": 180, "engineHours": 1840,
                ]
            ],
        ]
    }

    /// `document` as JSON, dates as ISO-8601 strings.
    static func json(_ document: PropertyList) throws -> [UInt8] {
        try document.encoded(as: .json, options: EncodingOptions(json: JSONEncodingOptions(lossyDatesAndData: true)))
    }

    /// PUTs `document` as JSON to `/pilots/KEY`.
    static func put(
        _ document: PropertyList, key: String, on server: ServerProcess, headers: [String: String] = [:]
    ) throws -> HTTPReply {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return try HTTP.send("PUT", server.url("/pilots/\(key)"), headers: headers, body: try json(document))
    }
}
