import Foundation
import Hangar
import HangarSync
import HangarTestSupport
import PropertyList
import Testing

/// An idempotent `PUT` retried while its first attempt is still in flight (the first answer lost to a killed or
/// paused server) gets the first attempt's answer once that commits, never a 412. hangar-check found the 412 on
/// PostgreSQL, where the retry read before the first attempt committed and then met its revision as a conflict:
/// an app that appends again on a conflict then saved the same value twice.
@Suite struct PilotsIdempotencyRaceTests {
    @Test(arguments: Engine.available)
    func aRetryMeetingItsFirstAttemptInFlightGetsThatAttemptsAnswer(_ engine: Engine) async throws {
        let server = try InProcessServer(engine)
        try await server.test { client in
            #expect(try await client.put(Pilots.document(name: "Ada"), key: "ada").status == 201)
            let edited = Pilots.document(name: "Ada", hours: 2)
            let (commit, committing) = AsyncStream<Void>.makeStream()
            let (written, writing) = AsyncStream<Void>.makeStream()
            // The first attempt, as the server writes it: the save and its remembered answer, not yet committed.
            let first = Task {
                try await server.withStore { store in
                    try await store.write { writer in
                        let revision = try await writer.save(
                            envelope: edited, key: "ada", in: "pilots", expectedRevision: 1)
                        try await SyncWriteAnswers.remember(
                            .init(collection: "pilots", key: "ada", revision: revision, created: false),
                            for: "attempt-1", user: nil, writer)
                        writing.yield()
                        for await _ in commit { break }
                    }
                }
            }
            for await _ in written { break }
            let retry = Task {
                try await client.put(
                    edited, key: "ada", headers: ["If-Match": "\"1\"", "Idempotency-Key": "attempt-1"])
            }
            // The retry reads (the first attempt invisible yet) and waits for the first attempt's lock.
            try await Task.sleep(for: .milliseconds(300))
            committing.yield()
            try await first.value
            let answer = try await retry.value
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.headers["etag"] == "\"2\"")
            let read = try await client.send(.get, "/pilots/ada", headers: ["Accept": "application/json"])
            #expect(read.headers["etag"] == "\"2\"")
        }
    }
}
