import Foundation
import Hangar
import HangarHummingbird
import HangarSync
import PilotModels
import PropertyList
import Testing

/// Who a request is for: bearer tokens pinned to HS256, `nbf`, `crit`, and users told apart by their bytes.
@Suite struct IdentityTests {
    /// `"jos\u{E9}"` and `"jose\u{301}"` are canonically equivalent (Swift's `==` says equal) and two users.
    static let jose = ("jos\u{E9}", "jose\u{301}")

    @Test func usersEqualButForNormalizationAreTwoUsers() async throws {
        #expect(Self.jose.0 == Self.jose.1)  // what String == would have merged
        let fixture = try RoutesFixture(auth: true)
        let first = try await Tokens.token(Self.jose.0)
        let second = try await Tokens.token(Self.jose.1)
        try await fixture.test { client in
            let created = try await client.send(
                .put, "/pilots/ada", headers: Tokens.bearer(first, Bodies.json), body: try Bodies.pilot("Ada"))
            #expect(created.status == 201)
            // The other spelling reads, lists, overwrites and deletes nothing of the first user's.
            #expect(try await client.send(.get, "/pilots/ada", headers: Tokens.bearer(second)).status == 404)
            #expect(try await client.send(.head, "/pilots/ada", headers: Tokens.bearer(second)).status == 404)
            let list = try await client.send(.get, "/pilots", headers: Tokens.bearer(second))
            #expect(list.status == 200 && !list.text.contains("ada"), "\(list.text)")
            let overwrite = try await client.send(
                .put, "/pilots/ada", headers: Tokens.bearer(second, Bodies.json), body: try Bodies.pilot("Mallory"))
            #expect(overwrite.status == 404)
            #expect(try await client.send(.delete, "/pilots/ada", headers: Tokens.bearer(second)).status == 404)
            #expect(try await client.send(.get, "/pilots/ada/history", headers: Tokens.bearer(second)).status == 404)
            let snapshot = try await client.send(.get, "/sync/pilots/snapshot", headers: Tokens.bearer(second))
            #expect(snapshot.status == 200)
            #expect(try SyncWire.batch(try SyncWire.value(snapshot.body)).items.isEmpty)
            let changes = try await client.send(.get, "/changes?since=0", headers: Tokens.bearer(second))
            #expect(changes.status == 200 && changes.body.isEmpty, "\(changes.text)")
            // The owner still has it, unchanged.
            let own = try await client.send(.get, "/pilots/ada", headers: Tokens.bearer(first))
            #expect(own.status == 200 && own.text.contains("Ada") && own.etag == "\"1\"")
        }
        try await fixture.withStore { store in
            let owner = try await store.read { try await SyncOwnership.owner(of: "ada", in: "pilots", $0) }
            #expect(owner.map { Array($0.utf8) } == Array(Self.jose.0.utf8))
        }
    }

    @Test(arguments: [
        #"{"alg":"none","typ":"JWT"}"#, #"{"alg":"RS256","typ":"JWT"}"#, #"{"alg":"HS384"}"#, #"{"typ":"JWT"}"#,
        #"{"alg":"hs256"}"#, #"{"alg":"HS256","crit":["exp"]}"#, #"{"alg":"HS256","crit":["x-unknown"],"x-unknown":1}"#,
        #"["HS256"]"#,
    ])
    func aTokenWhoseHeaderIsNotPinnedHS256IsRefused(header: String) async throws {
        let payload = #"{"sub":"ada","exp":\#(Int(Date().timeIntervalSince1970) + 3600)}"#
        let token = Tokens.handMade(header: header, payload: payload)
        try await RoutesFixture(auth: true).test { client in
            let reply = try await client.send(.get, "/pilots", headers: Tokens.bearer(token))
            #expect(reply.status == 401, "\(header): \(reply.status) \(reply.text)")
            #expect(reply.headers["www-authenticate"] == "Bearer")
        }
    }

    @Test func theSameTokenWithThePinnedHeaderIsAccepted() async throws {
        let payload = #"{"sub":"ada","exp":\#(Int(Date().timeIntervalSince1970) + 3600)}"#
        let token = Tokens.handMade(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: payload)
        try await RoutesFixture(auth: true).test { client in
            let reply = try await client.send(.get, "/pilots", headers: Tokens.bearer(token))
            #expect(reply.status == 200)
        }
    }

    @Test func aTokenNotValidYetOrExpiredIsRefused() async throws {
        let early = try await Tokens.token("ada", notBefore: Date(timeIntervalSinceNow: 3600))
        let late = try await Tokens.token("ada", expires: Date(timeIntervalSinceNow: -60))
        let now = try await Tokens.token("ada", notBefore: Date(timeIntervalSinceNow: -60))
        try await RoutesFixture(auth: true).test { client in
            let notYet = try await client.send(.get, "/pilots", headers: Tokens.bearer(early))
            #expect(notYet.status == 401 && notYet.text.contains("nbf"), "\(notYet.text)")
            let expired = try await client.send(.get, "/pilots", headers: Tokens.bearer(late))
            #expect(expired.status == 401 && expired.text.contains("expired"), "\(expired.text)")
            #expect(try await client.send(.get, "/pilots", headers: Tokens.bearer(now)).status == 200)
        }
    }

    @Test func anotherKeysSignatureIsRefused() async throws {
        let forged = try await Tokens.token("ada", key: Array("another key of 32 bytes, exactly".utf8))
        try await RoutesFixture(auth: true).test { client in
            let signedElsewhere = try await client.send(.get, "/pilots", headers: Tokens.bearer(forged))
            #expect(signedElsewhere.status == 401)
            let none = try await client.send(.get, "/pilots")
            #expect(none.status == 401)
        }
    }

    @Test func idempotencyAnswersNeverCrossUsers() async throws {
        let fixture = try RoutesFixture(auth: true)
        let u = try await Tokens.token("u")
        let uk = try await Tokens.token("u/k")
        try await fixture.test { client in
            // User `u`, key `k/shared`, then user `u/k`, key `shared`: two records, never one.
            let first = try await client.send(
                .put, "/pilots/mine",
                headers: Tokens.bearer(u, Bodies.json.merging(["Idempotency-Key": "k/shared"]) { $1 }),
                body: try Bodies.pilot("U"))
            #expect(first.status == 201)
            let second = try await client.send(
                .put, "/pilots/theirs",
                headers: Tokens.bearer(uk, Bodies.json.merging(["Idempotency-Key": "shared"]) { $1 }),
                body: try Bodies.pilot("UK"))
            #expect(second.status == 201, "\(second.text)")
            #expect(try await client.send(.get, "/pilots/theirs", headers: Tokens.bearer(uk)).status == 200)
            // `u`'s own retry still gets its own answer.
            let retry = try await client.send(
                .put, "/pilots/mine",
                headers: Tokens.bearer(u, Bodies.json.merging(["Idempotency-Key": "k/shared"]) { $1 }),
                body: try Bodies.pilot("U"))
            #expect(retry.status == 201 && retry.etag == "\"1\"")
        }
    }
}
