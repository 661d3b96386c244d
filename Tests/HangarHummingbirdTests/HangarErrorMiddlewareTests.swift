import Hangar
import HangarHummingbird
import Hummingbird
import HummingbirdTesting
import Testing

/// The one place a route's error becomes an answer: a router whose routes throw, in process.
@Suite struct HangarErrorMiddlewareTests {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String { "something else" }
    }

    static func application() -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: HangarErrorMiddleware())
        router.get("conflict") { _, _ -> Response in throw HangarError(.conflict, "pilots/ada: expected revision 1") }
        router.get("newer") { _, _ -> Response in throw HangarError(.newerMajor, "pilots/ada: major 3") }
        router.get("lost") { _, _ -> Response in throw HangarError(.connectionLost, "the server went away") }
        router.get("other") { _, _ -> Response in throw Unexpected() }
        router.get("api") { _, _ -> Response in throw HangarHTTPError(.notAcceptable, "as it is") }
        return Application(router: router)
    }

    @Test func everyErrorIsAnsweredAsOneLine() async throws {
        try await Self.application().test(.router) { client in
            let answers: [(path: String, status: Int, text: String)] = [
                ("/conflict", 412, "pilots/ada: expected revision 1"), ("/newer", 409, "pilots/ada: major 3"),
                ("/lost", 503, "the server went away"), ("/other", 500, "something else"), ("/api", 406, "as it is"),
            ]
            for answer in answers {
                let json = try await client.send(.get, answer.path)
                #expect(json.status == answer.status, "\(answer.path)")
                #expect(json.headers["content-type"] == "application/json", "\(answer.path)")
                #expect(json.text.hasPrefix("{\"error\":\""), "\(answer.path): \(json.text)")
                #expect(json.text.contains(answer.text), "\(answer.path): \(json.text)")
                let plain = try await client.send(.get, answer.path, headers: ["Accept": "text/plain"])
                #expect(plain.status == answer.status, "\(answer.path)")
                #expect(plain.headers["content-type"] == "text/plain; charset=utf-8", "\(answer.path)")
                #expect(plain.text.hasSuffix(answer.text + "\n"), "\(answer.path): \(plain.text)")
            }
            // No route: the router's own 404, with no body, as before the middleware.
            let none = try await client.send(.get, "/nowhere")
            #expect(none.status == 404)
            #expect(none.body.isEmpty)
        }
    }
}
