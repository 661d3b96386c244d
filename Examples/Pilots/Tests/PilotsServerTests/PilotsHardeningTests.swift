import Foundation
import HangarSync
import HangarTestSupport
import PropertyList
import Testing

/// What an attacker tries against a real `pilots-server --auth-key` process, with curl: users and keys equal but
/// for Unicode normalization, percent-encoded keys, tokens whose header is not HS256, a push the model refuses,
/// HEAD, and an oversized header block.
@Suite struct PilotsHardeningTests {
    let auth: PilotsAuthTests

    init() throws { auth = try PilotsAuthTests() }

    /// A token with `header` over `payload` (both JSON), HS256-signed with the server's key whatever the header
    /// says (python3's hmac: jwt-kit writes its own header).
    static func handMade(header: String, payload: String) throws -> String {
        let script = """
            import base64, hashlib, hmac, sys
            b = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
            signing = b(sys.argv[1].encode()) + "." + b(sys.argv[2].encode())
            print(signing + "." + b(hmac.new(sys.argv[3].encode(), signing.encode(), hashlib.sha256).digest()))
            """
        let key = String(decoding: PilotsAuthTests.key, as: UTF8.self)
        let output = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script, header, payload, key])
        guard output.status == 0 else { throw HarnessFailure("python3: \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aTokenWhoseHeaderIsNotHS256OrHasCritIsRefused() async throws {
        let server = try auth.startServer()
        defer { server.terminate() }
        let payload = #"{"sub":"ada","exp":\#(Int(Date().timeIntervalSince1970) + 3600)}"#
        for header in [#"{"alg":"none"}"#, #"{"alg":"RS256"}"#, #"{"typ":"JWT"}"#, #"{"alg":"HS256","crit":["x"]}"#] {
            let token = try Self.handMade(header: header, payload: payload)
            let reply = try HTTP.send("GET", server.url("/pilots"), headers: PilotsAuthTests.bearer(token))
            #expect(reply.status == 401, "\(header)")
        }
        let pinned = try Self.handMade(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: payload)
        #expect(try HTTP.send("GET", server.url("/pilots"), headers: PilotsAuthTests.bearer(pinned)).status == 200)
        let early = try Self.handMade(
            header: #"{"alg":"HS256"}"#, payload: #"{"sub":"ada","nbf":\#(Int(Date().timeIntervalSince1970) + 3600)}"#)
        #expect(try HTTP.send("GET", server.url("/pilots"), headers: PilotsAuthTests.bearer(early)).status == 401)
    }

    @Test func usersAndKeysEqualButForNormalizationStayApart() async throws {
        let server = try auth.startServer()
        defer { server.terminate() }
        let first = try await PilotsAuthTests.token("jos\u{E9}")
        let second = try await PilotsAuthTests.token("jose\u{301}")
        let created = try Pilots.put(
            Pilots.document(name: "Jos\u{E9}"), key: "caf%C3%A9", on: server, headers: PilotsAuthTests.bearer(first))
        #expect(created.status == 201 && created.headers["location"] == "/pilots/caf%C3%A9")
        for (method, path) in [
            ("GET", "/pilots/caf%C3%A9"), ("HEAD", "/pilots/caf%C3%A9"), ("DELETE", "/pilots/caf%C3%A9"),
        ] {
            let reply = try HTTP.send(method, server.url(path), headers: PilotsAuthTests.bearer(second))
            #expect(reply.status == 404, "\(method) \(path)")
        }
        // The other spelling of the key is another document, which the second user may create.
        let other = try Pilots.put(
            Pilots.document(name: "Other"), key: "cafe%CC%81", on: server, headers: PilotsAuthTests.bearer(second))
        #expect(other.status == 201)
        let own = try HTTP.send("GET", server.url("/pilots/caf%C3%A9"), headers: PilotsAuthTests.bearer(first))
        #expect(own.status == 200 && own.text.contains("Jos"), "\(own.text)")
        let head = try HTTP.send("HEAD", server.url("/pilots/caf%C3%A9"), headers: PilotsAuthTests.bearer(first))
        #expect(head.status == 200 && head.etag == "\"1\"")
    }

    @Test func aPushTheModelRefusesIsRejectedAndAnOversizedHeaderIs431() async throws {
        let server = try auth.startServer()
        defer { server.terminate() }
        let token = try await PilotsAuthTests.token("ada")
        let nameless: PropertyList = ["majorVersion": 2, "minorVersion": 0, "airplanes": "none"]
        let push = SyncPush(
            clientID: "device",
            mutations: [SyncMutation(id: 1, key: "p", base: 0, body: try nameless.encoded(as: .binary))])
        let reply = try HTTP.send(
            "POST", server.url("/sync/pilots/push"),
            headers: PilotsAuthTests.bearer(token, ["Content-Type": SyncWire.mediaType]),
            body: try SyncWire.bytes(SyncWire.encode(push)))
        #expect(reply.status == 200)
        let answer = try SyncWire.pushAnswer(try SyncWire.value(reply.body))
        guard case .rejected = answer.outcomes.first else {
            Issue.record("expected a rejection: \(answer.outcomes)")
            return
        }
        #expect(try HTTP.send("GET", server.url("/pilots/p"), headers: PilotsAuthTests.bearer(token)).status == 404)
        let huge = try HTTP.send(
            "GET", server.url("/pilots"),
            headers: PilotsAuthTests.bearer(token, ["X-Padding": String(repeating: "p", count: 90_000)]))
        #expect(huge.status == 431)
    }
}
