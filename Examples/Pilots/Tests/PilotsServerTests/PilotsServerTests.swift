import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PilotsHTTP
import PropertyList
import Testing

/// The server as a child process on a SQLite store, talked to with curl over loopback: what only the process
/// shows (its one line on standard output, Prometheus metrics, the signals, kill -9). The routes are tested in
/// process (`PilotsRoutesTests`, `PilotsEventStreamTests`).
@Suite struct PilotsServerTests {
    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory()
        database = directory.path + "/pilots.sqlite"
    }

    func start(_ extra: [String] = []) throws -> ServerProcess {
        try ServerProcess(["--db", database, "--max-body-size", "4096"] + extra, directory: directory.path)
    }

    @Test func listensPrintsOneLineAndServesMetrics() throws {
        let server = try start()
        defer { server.terminate() }
        #expect(server.child.outputSoFar == "listening on \(server.baseURL)\n")
        #expect(try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: server).status == 201)
        let health = try PropertyList(json: try HTTP.send("GET", server.url("/health")).body).dictionaryValue
        #expect(health?["engine"] == "sqlite")
        let metrics = try HTTP.send("GET", server.url("/metrics"))
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(metrics.text.contains("hb_request"))
    }

    @Test func aStoreThatCannotBeOpenedIsOneLineAndExit1() throws {
        // A store path under a regular file: no folder can be made there.
        let file = directory.path + "/a-file"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        let output = try ProcessRunner.run(
            ServerProcess.executable, ["--port", "0", "--db", file + "/pilots.sqlite"])
        #expect(output.status == 1)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("pilots-server: "))
        let password = "s3cret-in-url"
        let refused = try ProcessRunner.run(
            ServerProcess.executable, ["--port", "0", "--url", "postgres://u:\(password)@127.0.0.1:1/none"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("pilots-server: "))
        #expect(!refused.stderr.contains(password))
    }

    @Test func sigtermEndsStreamsAndExitsCleanly() throws {
        let server = try start()
        let stream = try HTTP.follow(server.url("/changes"), directory: directory.path)
        #expect(stream.waitForOutput(containing: ": following", timeout: 10))
        #expect(server.terminate() == 0)
        #expect(stream.waitForExit(timeout: 10) == 0)
        #expect(server.child.standardError.contains("shutting down"))
    }

    @Test func sigtermLetsARequestInFlightFinish() throws {
        let server = try start()
        // A valid body padded to 3000 bytes, sent at 1500 bytes a second: still arriving when SIGTERM comes.
        let body = try Pilots.json(Pilots.document(name: "Slow"))
        let padded = body + Array(repeating: UInt8(ascii: " "), count: 3000 - body.count)
        let file = directory.path + "/slow.json"
        try Data(padded).write(to: URL(fileURLWithPath: file))
        let upload = try ChildProcess(
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}\n", "-X", "PUT", "-H", "Expect:", "-H",
                "Content-Type: application/json", "--limit-rate", "1500", "--data-binary", "@" + file,
                server.url("/pilots/slow"),
            ], stderrPath: directory.path + "/upload.log", executable: HTTP.curl)
        Thread.sleep(forTimeInterval: 0.7)
        #expect(upload.outputSoFar.isEmpty, "the upload should still be in flight")
        #expect(server.terminate() == 0)
        #expect(upload.waitForExit(timeout: 10) == 0)
        #expect(upload.outputAtEnd(timeout: 10) == "201\n", "\(upload.standardError)")
        let store = try SQLiteStore(path: database, store: .pilotsServer())
        #expect(try store.read { try $0.exists(in: "pilots", key: "slow") })
    }

    @Test func everyAcknowledgedWriteSurvivesKill9() throws {
        let keys = AcknowledgedWrites.putUntilKilled(try start())
        #expect(keys.count > 3)
        let store = try SQLiteStore(path: database, store: .pilotsServer())
        for key in keys { #expect(try store.read { try $0.exists(in: "pilots", key: key) }, "\(key)") }
    }
}

/// The keys a writer thread saw acknowledged.
final class AcknowledgedWrites: @unchecked Sendable {
    /// PUTs pilots `p0`, `p1`, … to `server` from a thread, one after another, kills the server with SIGKILL once
    /// `acknowledgedFirst` were answered (counted, not timed: a loaded machine answers fewer in a given time; at most
    /// 30 s), and returns the keys whose PUT was answered with a 2xx before it died.
    static func putUntilKilled(_ server: ServerProcess, acknowledgedFirst: Int = 20) -> [String] {
        let acknowledged = AcknowledgedWrites()
        let writer = Thread {
            for index in 0..<10_000 {
                guard let reply = try? Pilots.put(Pilots.document(name: "P\(index)"), key: "p\(index)", on: server),
                    (200..<300).contains(reply.status)
                else { break }
                acknowledged.add("p\(index)")
            }
            acknowledged.finish()
        }
        writer.start()
        let deadline = Date(timeIntervalSinceNow: 30)
        while acknowledged.count < acknowledgedFirst, !acknowledged.hasEnded, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        server.kill9()
        return acknowledged.waitForEnd()
    }

    private let condition = NSCondition()
    private var keys: [String] = []
    private var ended = false

    func add(_ key: String) {
        condition.lock()
        keys.append(key)
        condition.unlock()
    }

    func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// How many were acknowledged so far.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return keys.count
    }

    /// Whether the writer stopped.
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    func waitForEnd() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return keys
    }
}
