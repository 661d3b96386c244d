import Foundation
import HangarTestSupport
import PropertyList
import Testing

/// Two server instances on one PostgreSQL database and schema, as an app scaled out runs them.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PilotsServerPostgresTests {
    let directory: TemporaryDirectory
    let arguments: [String]

    init() throws {
        directory = try TemporaryDirectory()
        arguments = ["--url", try TestPostgres.requireURL(), "--schema", TestPostgres.uniqueSchemaName("server")]
    }

    func start() throws -> ServerProcess { try ServerProcess(arguments, directory: directory.path) }

    @Test func twoInstancesShareDocumentsRevisionsAndChanges() throws {
        let first = try start()
        defer { first.terminate() }
        let second = try start()
        defer { second.terminate() }
        let stream = try HTTP.follow(second.url("/changes?since=0"), directory: directory.path)
        defer { stream.killAndWait() }
        #expect(stream.waitForOutput(containing: ": following changes after 0", timeout: 10))

        #expect(try Pilots.put(Pilots.document(name: "Ada"), key: "ada", on: first).status == 201)
        let read = try HTTP.send("GET", second.url("/pilots/ada"), headers: ["Accept": "application/x-plist"])
        #expect(read.status == 200)
        #expect(read.etag == "\"1\"")
        #expect(try PropertyList(binary: read.body) == Pilots.document(name: "Ada"))
        #expect(try Pilots.put(Pilots.document(name: "Ada", hours: 2), key: "ada", on: first).etag == "\"2\"")
        let stale = try Pilots.put(
            Pilots.document(name: "Ada", hours: 3), key: "ada", on: second, headers: ["If-Match": "\"1\""])
        #expect(stale.status == 412)
        for index in 0..<8 { _ = try Pilots.put(Pilots.document(name: "P\(index)"), key: "p\(index)", on: first) }

        #expect(stream.waitForOutput(containing: "id: 10\n", timeout: 15))
        let ids = stream.outputSoFar.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { $0.dropFirst(4) }
        #expect(ids.map { Int($0) } == Array(1...10).map { Optional($0) })
        let health = try PropertyList(json: try HTTP.send("GET", second.url("/health")).body)
        #expect(health.dictionaryValue?["engine"] == "postgresql")
    }

    @Test func everyAcknowledgedPutSurvivesKill9OfAnInstance() throws {
        let victim = try start()
        let survivor = try start()
        defer { survivor.terminate() }
        let keys = AcknowledgedWrites.putUntilKilled(victim)
        #expect(keys.count > 3)
        for key in keys {
            #expect(try HTTP.send("GET", survivor.url("/pilots/\(key)")).status == 200, "\(key)")
        }
    }
}
