import Foundation
import HummingbirdTesting
import PilotsHTTP
import Testing

/// `pilots-server --studio`: Hangar Studio at `/studio`, behind the server's own authentication.
@Suite struct PilotsStudioTests {
    /// Runs `body` against the application with the studio as `studio` and `users` say (with the test key when
    /// `users` is not `nil`).
    func withServer(
        studio: Bool = true, users: [String]? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let server = try InProcessServer(.sqlite)
        var configuration = server.configuration()
        configuration.api.studio = studio
        if let users {
            configuration.api.authKey = PilotsAuthTests.key
            configuration.api.studioUsers = users
        }
        try await buildApplication(configuration).test(.router, body)
    }

    @Test func theStudioShowsTheCollectionsAndTheirDeclaredFormat() async throws {
        try await withServer { client in
            let ada: [String: Any] = [
                "majorVersion": 2, "minorVersion": 0, "name": "Ada", "dateOfBirth": "1984-03-12T00:00:00Z",
                "airplanes": [Any](),
            ]
            let body = Array(try JSONSerialization.data(withJSONObject: ada))
            let put = try await client.send(
                .put, "/pilots/ada", headers: ["Content-Type": "application/json"], body: body)
            #expect(put.status == 201)
            let page = try await client.send(.get, "/studio/")
            #expect(page.status == 200 && page.text.contains("Hangar Studio"))
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            let overview = try await client.send(.get, "/studio/api/overview")
            #expect(overview.status == 200 && overview.text.contains("\"declared\":\"2.0\""), "\(overview.text)")
            let versions = try await client.send(.get, "/studio/api/versions/pilots")
            #expect(versions.text.contains("\"relation\":\"current\""), "\(versions.text)")
        }
    }

    @Test func withoutStudioThereIsNoStudio() async throws {
        try await withServer(studio: false) { client in
            let answer = try await client.send(.get, "/studio/api/overview")
            #expect(answer.status == 404)
        }
    }

    @Test func withAnAuthKeyOnlyTheNamedUsersOpenIt() async throws {
        let admin = try await PilotsAuthTests.token("admin")
        let ada = try await PilotsAuthTests.token("ada")
        try await withServer(users: ["admin"]) { client in
            #expect(try await client.send(.get, "/studio/api/overview").status == 401)
            #expect(
                try await client.send(.get, "/studio/api/overview", headers: PilotsAuthTests.bearer(ada)).status == 403)
            let allowed = try await client.send(.get, "/studio/api/overview", headers: PilotsAuthTests.bearer(admin))
            #expect(allowed.status == 200)
        }
    }
}
