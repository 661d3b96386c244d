import Foundation
import Hangar
import HangarHummingbird
import HangarSync
import PilotModels
import PropertyList
import Testing

/// The same rules on every way in, keys as the path spells them, HEAD, and answers a format cannot hold.
@Suite struct RouteRulesTests {
    @Test func keysInPathsArePercentDecoded() async throws {
        let fixture = try RoutesFixture()
        try await fixture.test { client in
            let created = try await client.send(
                .put, "/pilots/caf%C3%A9", headers: Bodies.json, body: try Bodies.pilot("Café"))
            #expect(created.status == 201)
            #expect(created.headers["location"] == "/pilots/caf%C3%A9")
            // `%61` is `a`: one document, not two.
            #expect(
                try await client.send(.put, "/pilots/a", headers: Bodies.json, body: try Bodies.pilot("A")).status
                    == 201)
            let again = try await client.send(.put, "/pilots/%61", headers: Bodies.json, body: try Bodies.pilot("A2"))
            #expect(again.status == 200 && again.etag == "\"2\"")
            // A key with a slash or a space is one segment, encoded.
            #expect(
                try await client.send(.put, "/pilots/a%2Fb", headers: Bodies.json, body: try Bodies.pilot("AB")).status
                    == 201)
            #expect(try await client.send(.get, "/pilots/a%2Fb/history").status == 200)
            #expect(
                try await client.send(.put, "/pilots/a%20key", headers: Bodies.json, body: try Bodies.pilot("K")).status
                    == 201)
            // Bad escapes and NUL are 400, never a key.
            #expect(try await client.send(.get, "/pilots/%E9").status == 400)
            #expect(try await client.send(.get, "/pilots/%zz").status == 400)
            #expect(try await client.send(.get, "/pilots/a%00b").status == 400)
        }
        try await fixture.withStore { store in
            let keys = try await store.read { try await $0.keys(in: "pilots") }
            #expect(Set(keys.map { Array($0.utf8) }) == Set(["caf\u{E9}", "a", "a/b", "a key"].map { Array($0.utf8) }))
        }
    }

    @Test func aDocumentMadeOverSyncIsReachedByItsEncodedKey() async throws {
        let fixture = try RoutesFixture()
        try await fixture.withStore { store in
            for key in ["a key", "\u{E9}t\u{E9}", "a/b", "..", "cafe\u{301}"] {
                try await store.write { try await $0.save(Pilot(name: key), key: key, in: "pilots") }
            }
        }
        try await fixture.test { client in
            for (path, name) in [
                ("a%20key", "a key"), ("%C3%A9t%C3%A9", "\u{E9}t\u{E9}"), ("a%2Fb", "a/b"), ("..", ".."),
                ("cafe%CC%81", "cafe\u{301}"),
            ] {
                let reply = try await client.send(.get, "/pilots/\(path)")
                #expect(reply.status == 200, "\(path)")
                let value = try PropertyList(json: reply.body)
                #expect(value["name"]?.stringValue.map { Array($0.utf8) } == Array(name.utf8), "\(path)")
            }
            // The NFC spelling is another key: not there.
            #expect(try await client.send(.get, "/pilots/caf%C3%A9").status == 404)
        }
    }

    @Test func headAnswersEveryGetRoute() async throws {
        try await RoutesFixture().test { client in
            #expect(
                try await client.send(.put, "/pilots/ada", headers: Bodies.json, body: try Bodies.pilot("Ada")).status
                    == 201)
            let get = try await client.send(.get, "/pilots/ada")
            let head = try await client.send(.head, "/pilots/ada")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.etag == get.etag && head.headers["content-type"] == get.headers["content-type"])
            #expect(head.headers["content-length"] == String(get.body.count))
            for path in ["/pilots", "/pilots/ada/history", "/pilots/ada/revisions/1", "/changes?since=0"] {
                #expect(try await client.send(.head, path).status == 200, "\(path)")
            }
            #expect(try await client.send(.head, "/pilots/nobody").status == 404)
        }
    }

    @Test func aPushMeetsTheModelAsAPutDoes() async throws {
        let fixture = try RoutesFixture()
        let refused: [(String, PropertyList)] = [
            ("no name", ["majorVersion": 2, "minorVersion": 0, "airplanes": []]),
            ("airplanes as a string", ["majorVersion": 2, "minorVersion": 0, "name": "X", "airplanes": "none"]),
            (
                "a class outside the registry",
                [
                    "majorVersion": 2, "minorVersion": 0, "name": "X",
                    "airplanes": [["class": "NSObject", "registrationNumber": "N1"]],
                ]
            ),
        ]
        try await fixture.test { client in
            for (index, (what, document)) in refused.enumerated() {
                let put = try await client.send(
                    .put, "/pilots/p\(index)", headers: Bodies.json, body: try document.encoded(as: .json))
                #expect(put.status == 400, "PUT of \(what): \(put.text)")
                let push = SyncPush(
                    clientID: "device",
                    mutations: [
                        SyncMutation(id: index + 1, key: "p\(index)", base: 0, body: try document.encoded(as: .binary))
                    ])
                let reply = try await client.send(
                    .post, "/sync/pilots/push", headers: ["Content-Type": SyncWire.mediaType],
                    body: try SyncWire.bytes(SyncWire.encode(push)))
                #expect(reply.status == 200, "push of \(what)")
                let answer = try SyncWire.pushAnswer(try SyncWire.value(reply.body))
                guard case .rejected(_, let reason) = answer.outcomes.first else {
                    Issue.record("push of \(what): \(answer.outcomes)")
                    continue
                }
                #expect(reason.contains("pilots/p\(index)"), "\(what): \(reason)")
                #expect(try await client.send(.get, "/pilots/p\(index)").status == 404, "\(what)")
            }
            // A document larger than the body limit: 413 as a PUT, rejected as a push.
            let large: PropertyList = [
                "majorVersion": 2, "minorVersion": 0, "name": .string(String(repeating: "x", count: 5000)),
                "airplanes": [],
            ]
            let put = try await client.send(
                .put, "/pilots/big", headers: Bodies.json, body: try large.encoded(as: .json))
            #expect(put.status == 413)
            let push = SyncPush(
                clientID: "device",
                mutations: [SyncMutation(id: 9, key: "big", base: 0, body: try large.encoded(as: .binary))])
            let reply = try await client.send(
                .post, "/sync/pilots/push", headers: ["Content-Type": SyncWire.mediaType],
                body: try SyncWire.bytes(SyncWire.encode(push)))
            let answer = try SyncWire.pushAnswer(try SyncWire.value(reply.body))
            guard case .rejected(let code, _) = answer.outcomes.first else {
                Issue.record("push of a large document: \(answer.outcomes)")
                return
            }
            #expect(code == "contentTooLarge")
            #expect(try await client.send(.get, "/pilots/big").status == 404)
        }
    }

    @Test func aValueAFormatCannotHoldIsA406NeverA500() async throws {
        let fixture = try RoutesFixture()
        try await fixture.withStore { store in
            _ = try await store.write { writer in
                try await writer.save(Pilot(name: "bell\u{7}", licenseNumber: "\u{FFFE}"), key: "control", in: "pilots")
            }
        }
        try await fixture.test { client in
            let xml = try await client.send(.get, "/pilots/control", headers: ["Accept": "application/x-plist+xml"])
            #expect(xml.status == 406, "\(xml.text)")
            #expect(xml.text.contains("XML"), "\(xml.text)")
            let binary = try await client.send(.get, "/pilots/control", headers: ["Accept": "application/x-plist"])
            #expect(binary.status == 200)
            #expect(try PropertyList(binary: binary.body)["name"] == "bell\u{7}")
            // A JSON body with such a name is accepted (JSON holds it), and answered in JSON.
            let body = Array(#"{"majorVersion":2,"minorVersion":0,"name":"a\u0000b","airplanes":[]}"#.utf8)
            #expect(try await client.send(.put, "/pilots/nul", headers: Bodies.json, body: body).status == 201)
            #expect(try await client.send(.get, "/pilots/nul").status == 200)
            #expect(try await client.send(.get, "/pilots/nul", headers: ["Accept": "text/xml"]).status == 406)
            // With more than one type admitted, the first that can hold it answers.
            let either = try await client.send(
                .get, "/pilots/nul", headers: ["Accept": "application/x-plist+xml, application/x-plist;q=0.5"])
            #expect(either.status == 200 && either.headers["content-type"] == "application/x-plist")
        }
    }
}
