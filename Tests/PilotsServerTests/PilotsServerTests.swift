import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PilotsHTTP
import PropertyList
import Testing

/// The server as a child process on a SQLite store, talked to with curl over loopback.
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

    /// A JSON body read back the way the server writes it: dates at the model's date keys restored.
    func parseJSON(_ bytes: [UInt8]) throws -> PropertyList {
        guard case .dictionary(var entries) = try PropertyList(json: bytes) else { return .array([]) }
        if case .string(let text)? = entries["dateOfBirth"], let seconds = PropertyList.date(fromISO8601Text: text) {
            entries["dateOfBirth"] = .date(seconds)
        }
        return .dictionary(entries)
    }

    @Test func createThenReadInEveryFormat() throws {
        let server = try start()
        defer { server.terminate() }
        let document = Pilots.document(name: "Ada")
        let created = try Pilots.put(document, key: "ada", on: server)
        #expect(created.status == 201)
        #expect(created.etag == "\"1\"")
        let again = try Pilots.put(document, key: "ada", on: server)
        #expect(again.status == 200)
        #expect(again.etag == "\"2\"")

        let json = try HTTP.send("GET", server.url("/pilots/ada"), headers: ["Accept": ""])
        #expect(json.status == 200)
        #expect(json.headers["content-type"] == "application/json")
        #expect(json.etag == "\"2\"")
        #expect(try parseJSON(json.body) == document)
        let birth = PropertyList.iso8601Text(forDate: -534_384_000.5, fractionDigits: 6) ?? "?"
        #expect(birth.hasSuffix(":59.5Z"))
        #expect(json.text.contains("\"dateOfBirth\":\"\(birth)\""))

        let xml = try HTTP.send("GET", server.url("/pilots/ada"), headers: ["Accept": "text/xml"])
        #expect(xml.headers["content-type"] == "application/x-plist+xml")
        // XML plists carry whole seconds (as Apple's XML writer does): the half second is the only difference.
        guard case .dictionary(var wholeSeconds) = document else { return }
        wholeSeconds["dateOfBirth"] = .date(-534_384_001)
        #expect(try PropertyList(xml: xml.body) == .dictionary(wholeSeconds))

        let binary = try HTTP.send("GET", server.url("/pilots/ada"), headers: ["Accept": "application/x-plist"])
        #expect(binary.headers["content-type"] == "application/x-plist")
        #expect(Array(binary.body.prefix(6)) == Array("bplist".utf8))
        #expect(try PropertyList(binary: binary.body) == document)

        let preferred = try HTTP.send(
            "GET", server.url("/pilots/ada"), headers: ["Accept": "application/json;q=0.5, application/x-plist"])
        #expect(preferred.headers["content-type"] == "application/x-plist")

        let missing = try HTTP.send("GET", server.url("/pilots/nobody"))
        #expect(missing.status == 404)
        #expect(try PropertyList(json: missing.body).dictionaryValue?["error"] != nil)
    }

    @Test func revisionsAreETagsForConditionalRequests() throws {
        let server = try start()
        defer { server.terminate() }
        #expect(try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: server).etag == "\"1\"")
        let updated = try Pilots.put(
            Pilots.document(name: "Ada", hours: 2), key: "ada", on: server, headers: ["If-Match": "\"1\""])
        #expect(updated.status == 200)
        #expect(updated.etag == "\"2\"")
        let stale = try Pilots.put(
            Pilots.document(name: "Ada", hours: 3), key: "ada", on: server, headers: ["If-Match": "\"1\""])
        #expect(stale.status == 412)
        #expect(stale.etag == "\"2\"")
        #expect(
            try Pilots.put(Pilots.document(name: "X"), key: "ada", on: server, headers: ["If-None-Match": "*"]).status
                == 412)
        #expect(
            try Pilots.put(Pilots.document(name: "X"), key: "bo", on: server, headers: ["If-Match": "*"]).status == 412)
        #expect(
            try Pilots.put(Pilots.document(name: "Bo"), key: "bo", on: server, headers: ["If-None-Match": "*"]).status
                == 201)

        let notModified = try HTTP.send("GET", server.url("/pilots/ada"), headers: ["If-None-Match": "\"2\""])
        #expect(notModified.status == 304)
        #expect(notModified.etag == "\"2\"")
        #expect(notModified.body.isEmpty)
        #expect(try HTTP.send("GET", server.url("/pilots/ada"), headers: ["If-None-Match": "\"1\""]).status == 200)
        let read = try HTTP.send("GET", server.url("/pilots/ada"))
        #expect(try parseJSON(read.body) == Pilots.document(name: "Ada", hours: 2))

        #expect(try HTTP.send("DELETE", server.url("/pilots/ada"), headers: ["If-Match": "\"1\""]).status == 412)
        #expect(try HTTP.send("DELETE", server.url("/pilots/ada"), headers: ["If-Match": "\"2\""]).status == 204)
        #expect(try HTTP.send("GET", server.url("/pilots/ada")).status == 404)
        #expect(try HTTP.send("DELETE", server.url("/pilots/ada")).status == 404)
    }

    @Test func historyAndKeptRevisions() throws {
        let server = try start()
        defer { server.terminate() }
        for hours in 1...3 { _ = try Pilots.put(Pilots.document(name: "Ada", hours: hours), key: "ada", on: server) }
        let history = try HTTP.send("GET", server.url("/pilots/ada/history"))
        #expect(history.status == 200)
        #expect(history.etag == "\"3\"")
        let revisions = try PropertyList(json: history.body).dictionaryValue?["revisions"]?.arrayValue ?? []
        #expect(revisions.compactMap { $0.dictionaryValue?["revision"] } == [1, 2, 3])
        #expect(revisions.last?.dictionaryValue?["current"] == true)
        let first = try HTTP.send(
            "GET", server.url("/pilots/ada/revisions/1"), headers: ["Accept": "application/x-plist"])
        #expect(first.status == 200)
        #expect(first.etag == "\"1\"")
        #expect(try PropertyList(binary: first.body) == Pilots.document(name: "Ada", hours: 1))
        #expect(try HTTP.send("GET", server.url("/pilots/ada/revisions/9")).status == 404)
        #expect(try HTTP.send("GET", server.url("/pilots/ada/revisions/x")).status == 400)
        #expect(try HTTP.send("GET", server.url("/pilots/bo/history")).status == 404)
    }

    @Test func listingIsPagedAndFiltered() throws {
        let server = try start()
        defer { server.terminate() }
        for (key, field) in [("a", "ESSB"), ("b", "ESSA"), ("c", "ESSB")] {
            _ = try Pilots.put(Pilots.document(name: key, airfield: field), key: key, on: server)
        }
        let page = try PropertyList(json: try HTTP.send("GET", server.url("/pilots?limit=2")).body)
        #expect(page.dictionaryValue?["keys"] == ["a", "b"])
        #expect(page.dictionaryValue?["nextOffset"] == 2)
        let rest = try PropertyList(json: try HTTP.send("GET", server.url("/pilots?limit=2&offset=2")).body)
        #expect(rest.dictionaryValue?["keys"] == ["c"])
        #expect(rest.dictionaryValue?["nextOffset"] == nil)
        let indexed = try HTTP.send("GET", server.url("/pilots?index=homeAirfield&value=ESSB"))
        #expect(try PropertyList(json: indexed.body).dictionaryValue?["keys"] == ["a", "c"])
        let registration = try HTTP.send("GET", server.url("/pilots?index=airplanes.registrationNumber&value=SE-KMP"))
        #expect(try PropertyList(json: registration.body).dictionaryValue?["keys"] == ["a", "b", "c"])
        let tagged = try HTTP.send("GET", server.url("/pilots?class=Nothing"))
        #expect(try PropertyList(json: tagged.body).dictionaryValue?["keys"] == [])
        #expect(try HTTP.send("GET", server.url("/pilots?index=nope&value=1")).status == 400)
        #expect(try HTTP.send("GET", server.url("/pilots?limit=0")).status == 400)
    }

    @Test func badBodiesAreRefusedWithTheirReason() throws {
        let server = try start()
        defer { server.terminate() }
        var document = Pilots.document(name: "Ada")
        guard case .dictionary(var entries) = document, case .array(var planes)? = entries["airplanes"],
            case .dictionary(var plane) = planes[0]
        else { throw HarnessFailure("fixture shape") }
        plane["airframeHours"] = "12"
        planes[0] = .dictionary(plane)
        entries["airplanes"] = .array(planes)
        document = .dictionary(entries)
        let wrongType = try Pilots.put(document, key: "ada", on: server, headers: ["Accept": "text/plain"])
        #expect(wrongType.status == 400)
        #expect(wrongType.text.contains("airplanes[0].airframeHours: expected integer, found string \"12\""))
        #expect(wrongType.text.split(separator: "\n").count == 1)

        let json = ["Content-Type": "application/json"]
        let broken = try HTTP.send("PUT", server.url("/pilots/ada"), headers: json, body: Array("{\"name\": ".utf8))
        #expect(broken.status == 400)
        let noVersion = try HTTP.send(
            "PUT", server.url("/pilots/ada"), headers: json, body: Array("{\"name\":\"A\"}".utf8))
        #expect(noVersion.status == 400)
        #expect(noVersion.text.contains("majorVersion"))
        let badDate = try HTTP.send(
            "PUT", server.url("/pilots/ada"), headers: json,
            body: Array(#"{"majorVersion":2,"minorVersion":0,"name":"A","dateOfBirth":"yesterday"}"#.utf8))
        #expect(badDate.status == 400)
        #expect(badDate.text.contains("dateOfBirth"))

        let unknownType = try HTTP.send(
            "PUT", server.url("/pilots/ada"), headers: ["Content-Type": "text/plain"],
            body: try Pilots.json(Pilots.document(name: "A")))
        #expect(unknownType.status == 415)
        #expect(try HTTP.send("GET", server.url("/pilots"), headers: ["Accept": "image/png"]).status == 406)
        let large = try HTTP.send(
            "PUT", server.url("/pilots/ada"), headers: json, body: Array(repeating: UInt8(ascii: " "), count: 5000))
        #expect(large.status == 413)
        #expect(try HTTP.send("GET", server.url("/pilots/ada")).status == 404)
    }

    @Test func anOldBodyIsMigratedOnTheWayIn() throws {
        let server = try start()
        defer { server.terminate() }
        let old = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Migrations/Pilots/pilot-v1.0.xml")))
        let put = try HTTP.send("PUT", server.url("/pilots/ada"), headers: ["Content-Type": "text/xml"], body: old)
        #expect(put.status == 201)
        let read = try parseJSON(try HTTP.send("GET", server.url("/pilots/ada")).body)
        #expect(read.dictionaryValue?["majorVersion"] == 2)
        let planes = read.dictionaryValue?["airplanes"]?.arrayValue ?? []
        #expect(planes.map { $0.dictionaryValue?["class"] } == ["Airplane", "PoweredAirplane", "Glider"])
        #expect(planes.first?.dictionaryValue?["registrationNumber"] == "SE-GHK")
        #expect(planes.first?.dictionaryValue?["airframeHours"] == 7350)
    }

    @Test func newerMajorsAreRefusedAndNeverOverwritten() throws {
        let configuration = StoreConfiguration.pilotsServer()
        var future = Pilots.document(name: "Future")
        if case .dictionary(var entries) = future {
            entries["majorVersion"] = 3
            future = .dictionary(entries)
        }
        let before: [UInt8]
        do {
            let store = try SQLiteStore(path: database, store: configuration)
            try store.write {
                try $0.save(
                    envelope: future, key: "future", in: "pilots", expectedRevision: nil, overwritingNewerMajor: true)
            }
            before = try store.read { try $0.document(in: "pilots", key: "future")?.body } ?? []
        }
        let server = try start()
        let newer = try Pilots.put(future, key: "other", on: server)
        #expect(newer.status == 422)
        #expect(try HTTP.send("GET", server.url("/pilots/future")).status == 409)
        #expect(try Pilots.put(Pilots.document(name: "Now"), key: "future", on: server).status == 409)
        #expect(try HTTP.send("DELETE", server.url("/pilots/future")).status == 409)
        #expect(server.terminate() == 0)
        let store = try SQLiteStore(path: database, store: configuration)
        let after = try store.read { try $0.document(in: "pilots", key: "future") }
        #expect(after?.body == before)
        #expect(after?.revision == 1)
        #expect(try store.read { try $0.exists(in: "pilots", key: "other") } == false)
    }

    @Test func changesAsJSONLines() throws {
        let server = try start()
        defer { server.terminate() }
        _ = try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: server)
        _ = try Pilots.put(Pilots.document(name: "Bo"), key: "bo", on: server)
        _ = try HTTP.send("DELETE", server.url("/pilots/ada"))
        let all = try HTTP.send("GET", server.url("/changes?since=0"))
        #expect(all.headers["content-type"] == "application/x-ndjson")
        let lines = try all.text.split(separator: "\n").map { try PropertyList(json: Array($0.utf8)) }
        #expect(lines.map { $0.dictionaryValue?["sequence"] } == [1, 2, 3])
        #expect(lines.map { $0.dictionaryValue?["kind"] } == ["save", "save", "delete"])
        #expect(lines.map { $0.dictionaryValue?["key"] } == ["ada", "bo", "ada"])
        let one = try HTTP.send("GET", server.url("/changes?since=1&limit=1"))
        #expect(one.text.split(separator: "\n").count == 1)
        #expect(one.text.contains("\"sequence\":2"))
    }

    @Test func prunedChangesAreGone() throws {
        do {
            var configuration = StoreConfiguration.pilotsServer()
            configuration.changeRetention = ChangeRetention(maximumCount: 1, maximumAge: nil)
            let store = try SQLiteStore(path: database, store: configuration)
            for index in 0..<5 {
                try store.write { try $0.save(envelope: Pilots.document(name: "P"), key: "p\(index)", in: "pilots") }
            }
        }
        let server = try start()
        defer { server.terminate() }
        let gone = try HTTP.send("GET", server.url("/changes?since=0"))
        #expect(gone.status == 410)
        let stream = try HTTP.send("GET", server.url("/changes?since=0"), headers: ["Accept": "text/event-stream"])
        #expect(stream.status == 410)
        #expect(try HTTP.send("GET", server.url("/changes?since=4")).status == 200)
    }

    @Test func liveChangeStreamAndResumption() throws {
        let server = try start()
        defer { server.terminate() }
        _ = try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: server)
        let stream = try HTTP.follow(server.url("/changes"), directory: directory.path)
        defer { stream.killAndWait() }
        #expect(stream.waitForOutput(containing: ": following changes after 1", timeout: 10))
        _ = try Pilots.put(Pilots.document(name: "Bo"), key: "bo", on: server)
        #expect(stream.waitForOutput(containing: "id: 2\nevent: change\ndata: {", timeout: 10))
        #expect(stream.outputSoFar.contains("\"key\":\"bo\""))
        #expect(!stream.outputSoFar.contains("id: 1\n"))

        let resumed = try HTTP.follow(
            server.url("/changes"), headers: ["Last-Event-ID": "0"], directory: directory.path)
        defer { resumed.killAndWait() }
        #expect(resumed.waitForOutput(containing: "id: 2\n", timeout: 10))
        #expect(resumed.outputSoFar.contains("id: 1\n"))
        _ = try Pilots.put(Pilots.document(name: "Cy"), key: "cy", on: server)
        #expect(resumed.waitForOutput(containing: "id: 3\n", timeout: 10))
        #expect(stream.waitForOutput(containing: "id: 3\n", timeout: 10))
    }

    @Test func healthAndMetrics() throws {
        let server = try start()
        defer { server.terminate() }
        let health = try HTTP.send("GET", server.url("/health"))
        #expect(health.status == 200)
        let report = try PropertyList(json: health.body).dictionaryValue
        #expect(report?["engine"] == "sqlite")
        #expect(report?["status"] == "ok")
        #expect((report?["schemaVersion"]?.integerValue?.exactly(Int.self) ?? 0) > 0)
        let metrics = try HTTP.send("GET", server.url("/metrics"))
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("hb_request"))
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
        #expect(upload.outputSoFar == "201\n", "\(upload.standardError)")
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
    /// PUTs pilots `p0`, `p1`, … to `server` from a thread, one after another, kills the server with SIGKILL after
    /// `seconds`, and returns the keys whose PUT was answered with a 2xx before it died.
    static func putUntilKilled(_ server: ServerProcess, after seconds: TimeInterval = 0.8) -> [String] {
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
        Thread.sleep(forTimeInterval: seconds)
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

    func waitForEnd() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return keys
    }
}
