import Foundation
import HangarTestSupport
import Testing

/// `hangar studio` as scripts use it: one line on standard output, loopback only, the token on everything but
/// the assets, a clean exit on SIGINT or SIGTERM even with an event stream open.
@Suite struct StudioProcessTests {
    @Test func itPrintsExactlyOneLineAndRefusesRequestsWithoutTheToken() async throws {
        let (_, path) = try await StudioBrowserTests.sampleStore()
        let studio = try StudioProcess(["--db", path, "--port", "0"])
        #expect(studio.url.hasPrefix("http://127.0.0.1:"))
        let token = studio.url.split(separator: "=").last.map(String.init) ?? ""
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        // The access checks need python3 only (urllib), no browser.
        let access = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "python3", Browser.script, "access", "--url", studio.url, "--expect",
                "{\"secret\": \"\(StudioStores.secret)\", \"document\": \"secret\"}",
            ])
        #expect(access.status == 0, "\(access.stderr)")
        #expect(studio.stop(signal: SIGINT) == 0)
        #expect(studio.standardOutput == "studio: \(studio.url)\n")
    }

    @Test func aNewTokenEachStart() async throws {
        let (_, path) = try await StudioBrowserTests.sampleStore()
        let first = try StudioProcess(["--db", path])
        let second = try StudioProcess(["--db", path])
        #expect(first.url != second.url)
        #expect(first.stop() == 0)
        #expect(second.stop() == 0)
    }

    @Test func sigtermEndsItWithinSecondsWithAnEventStreamOpen() async throws {
        let (_, path) = try await StudioBrowserTests.sampleStore()
        let studio = try StudioProcess(["--db", path])
        let token = studio.url.split(separator: "=").last.map(String.init) ?? ""
        let base = studio.url.split(separator: "?").first.map(String.init) ?? ""
        // An event stream held open by curl (no browser needed).
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-sN", base + "api/changes/events?token=" + token]
        curl.standardOutput = FileHandle.nullDevice
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        try await Task.sleep(for: .milliseconds(500))
        let started = Date()
        #expect(studio.stop(signal: SIGTERM, timeout: 5) == 0)
        #expect(Date().timeIntervalSince(started) < 5)
        curl.terminate()
    }

    @Test func aMissingStoreIsAOneLineError() throws {
        let result = try ProcessRunner.run(StudioProcess.executable, ["studio", "--db", "/nonexistent/store.sqlite"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "/nonexistent/store.sqlite: No such store\n")
    }
}
