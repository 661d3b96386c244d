import Foundation
import Hangar
import HangarHummingbird
import PilotModels
import PropertyList
import Testing

/// `Hangar-Token`: every write's answer carries its commit's token, every read's answer the token it is as of, and
/// a read sent with one honours it (on SQLite a token is the change feed's sequence, always met at once).
@Suite struct TokenHeaderTests {
    @Test func everyWriteAndReadAnswerCarriesAToken() async throws {
        let fixture = try RoutesFixture()
        try await fixture.test { client in
            let created = try await client.send(
                .put, "/pilots/amelia", headers: Bodies.json, body: try Bodies.pilot("A"))
            #expect(created.status == 201)
            let first = try #require(created.headers["hangar-token"].flatMap(CommitToken.init))
            let saved = try await client.send(
                .put, "/pilots/amelia", headers: Bodies.json.merging(["If-Match": "\"1\""]) { $1 },
                body: try Bodies.pilot("A2"))
            #expect(saved.status == 200)
            let second = try #require(saved.headers["hangar-token"].flatMap(CommitToken.init))
            #expect(second.covers(first) && !first.covers(second))
            // A read with the newest token sees that write, and says it is at least that new.
            let read = try await client.send(.get, "/pilots/amelia", headers: ["Hangar-Token": second.description])
            #expect(read.status == 200 && read.etag == "\"2\"")
            let readToken = try #require(read.headers["hangar-token"].flatMap(CommitToken.init))
            #expect(readToken.covers(second))
            for path in ["/pilots", "/pilots/amelia/history", "/pilots/amelia/revisions/1", "/changes?since=0"] {
                let answer = try await client.send(.get, path, headers: ["Hangar-Token": first.description])
                #expect(answer.status == 200, "\(path)")
                #expect(answer.headers["hangar-token"].flatMap(CommitToken.init)?.covers(second) == true, "\(path)")
            }
            let deleted = try await client.send(.delete, "/pilots/amelia")
            #expect(deleted.status == 204)
            #expect(deleted.headers["hangar-token"].flatMap(CommitToken.init)?.covers(second) == true)
            // A token that is not one is refused, never ignored.
            #expect(try await client.send(.get, "/pilots", headers: ["Hangar-Token": "soon"]).status == 400)
        }
    }
}
