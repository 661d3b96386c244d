import Foundation
import HangarTestSupport
import Testing

/// The live change stream in process: `buildApplication`'s HTTP server on a free loopback port (HummingbirdTesting
/// `.live`), read by a real `curl -N`, on each engine. Waits poll asynchronously, so a test never blocks the
/// threads the server's tasks run on.
@Suite struct PilotsEventStreamTests {
    /// Whether `condition` holds within `timeout` seconds, checked every 20 ms.
    static func eventually(_ timeout: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Whether `child` has printed `text` within `timeout` seconds.
    static func output(of child: ChildProcess, contains text: String, within timeout: Double = 10) async -> Bool {
        await eventually(timeout) { child.outputSoFar.contains(text) }
    }

    @Test(arguments: Engine.available) func liveChangeStreamAndResumption(_ engine: Engine) async throws {
        let server = try InProcessServer(engine)
        let directory = server.directory.path
        let streams = try await server.test(.live) { client in
            let base = "http://127.0.0.1:\(client.port ?? 0)"
            _ = try await client.put(Pilots.document(name: "Ada"), key: "ada")
            let stream = try HTTP.follow(base + "/changes", directory: directory)
            #expect(await Self.output(of: stream, contains: ": following changes after 1"))
            _ = try await client.put(Pilots.document(name: "Bo"), key: "bo")
            #expect(await Self.output(of: stream, contains: "id: 2\nevent: change\ndata: {"))
            #expect(stream.outputSoFar.contains("\"key\":\"bo\""))
            #expect(!stream.outputSoFar.contains("id: 1\n"))

            let resumed = try HTTP.follow(base + "/changes", headers: ["Last-Event-ID": "0"], directory: directory)
            #expect(await Self.output(of: resumed, contains: "id: 2\n"))
            #expect(resumed.outputSoFar.contains("id: 1\n"))
            _ = try await client.put(Pilots.document(name: "Cy"), key: "cy")
            #expect(await Self.output(of: resumed, contains: "id: 3\n"))
            #expect(await Self.output(of: stream, contains: "id: 3\n"))
            return [stream, resumed]
        }
        // The test's end shut the application down gracefully: each stream ended cleanly, and curl with it.
        for stream in streams {
            let ended = await Self.eventually(10) { stream.waitForExit(timeout: 0) != nil }
            #expect(ended)
            if !ended { stream.killAndWait() }
            #expect(stream.waitForExit(timeout: 0) == 0, "curl: \(stream.standardError)")
        }
    }

    @Test(arguments: Engine.available) func aStreamOnlyOfACollection(_ engine: Engine) async throws {
        let server = try InProcessServer(engine)
        let directory = server.directory.path
        let stream = try await server.test(.live) { client in
            let url = "http://127.0.0.1:\(client.port ?? 0)/changes?since=0&collection=airfields"
            let stream = try HTTP.follow(url, directory: directory)
            #expect(await Self.output(of: stream, contains: ": following changes after 0"))
            _ = try await client.put(Pilots.document(name: "Ada"), key: "ada")
            // A heartbeat-free wait: nothing of the pilots collection arrives.
            try await Task.sleep(for: .milliseconds(300))
            #expect(!stream.outputSoFar.contains("id: "))
            return stream
        }
        #expect(await Self.eventually(10) { stream.waitForExit(timeout: 0) != nil })
        stream.killAndWait()
    }
}
