import Foundation
import HangarSync
import PropertyList
import Testing

/// The HTTP binding both ends use: paths, the checkpoint's query both ways, codes to statuses and back.
struct SyncHTTPTests {
    static let checkpoint = SyncCheckpoint(storeID: "S1", epoch: "E1", through: 42, mark: "m42")
    static let acknowledging = SyncCheckpoint(
        storeID: "S1", epoch: "E1", through: 42, mark: "m42", acknowledged: 50, acknowledgedMark: "m50")

    @Test func actionsHaveTheirPathsAndMethods() {
        #expect(
            SyncHTTP.Action.allCases.map { SyncHTTP.path($0, collection: "pilots") } == [
                "sync/pilots/changes", "sync/pilots/snapshot", "sync/pilots/push", "sync/pilots/events",
            ])
        #expect(SyncHTTP.Action.allCases.map(\.method) == ["GET", "GET", "POST", "GET"])
        #expect(SyncHTTP.path(.changes, collection: ":collection") == "sync/:collection/changes")
    }

    @Test func urlsCarryTheCheckpointAndEncodeTheCollection() throws {
        let base = try #require(URL(string: "http://127.0.0.1:8080/api"))
        let pull = try SyncHTTP.url(.changes, collection: "pilots", at: base, after: Self.checkpoint)
        #expect(
            pull.absoluteString == "http://127.0.0.1:8080/api/sync/pilots/changes?since=42&store=S1&epoch=E1&mark=m42")
        let acknowledged = try SyncHTTP.url(.events, collection: "pilots", at: base, after: Self.acknowledging)
        #expect(
            acknowledged.absoluteString
                == "http://127.0.0.1:8080/api/sync/pilots/events?since=42&store=S1&epoch=E1&mark=m42"
                + "&acknowledged=50&acknowledgedMark=m50")
        let snapshot = try SyncHTTP.url(.snapshot, collection: "a b\u{E9}", at: base, after: nil)
        #expect(snapshot.absoluteString == "http://127.0.0.1:8080/api/sync/a%20b%C3%A9/snapshot")
    }

    /// What a client writes, the server reads back: every field, text that needs percent-encoding included.
    @Test(arguments: [
        checkpoint, acknowledging,
        SyncCheckpoint(storeID: "a&b=c", epoch: "é +/?", through: 0, mark: ""),
        SyncCheckpoint(storeID: "S", epoch: "E", through: 7, mark: "#7", acknowledged: 9, acknowledgedMark: "%9"),
    ])
    func theCheckpointsQueryRoundTrips(checkpoint: SyncCheckpoint) throws {
        let base = try #require(URL(string: "http://host"))
        let url = try SyncHTTP.url(.changes, collection: "pilots", at: base, after: checkpoint)
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        let read = try SyncHTTP.checkpoint { name in items.first { $0.name == name }?.value }
        #expect(read == checkpoint)
    }

    @Test(arguments: [
        ["store": "S", "epoch": "E"], ["since": "1", "epoch": "E"], ["since": "1", "store": "S"],
        ["since": "-1", "store": "S", "epoch": "E"], ["since": "x", "store": "S", "epoch": "E"],
    ])
    func aQueryWithoutSinceStoreAndEpochIsInvalid(query: [String: String]) {
        #expect {
            _ = try SyncHTTP.checkpoint { query[$0] }
        } throws: { ($0 as? SyncError)?.code == .invalidRequest }
    }

    @Test func aQueryWithoutMarkOrAcknowledgedReadsAsEmpty() throws {
        let query = ["since": "3", "store": "S", "epoch": "E", "acknowledged": "x"]
        let read = try SyncHTTP.checkpoint { query[$0] }
        #expect(read == SyncCheckpoint(storeID: "S", epoch: "E", through: 3, mark: ""))
    }

    /// Each code a server throws, as its status and body, and what a client makes of them.
    @Test(arguments: [
        (SyncError.Code.resyncNeeded, 410, "pruned" as String?, SyncError.Code.resyncNeeded),
        (.historyChanged, 410, "history", .historyChanged),
        (.invalidRequest, 400, nil, .refused),
        (.notFound, 404, nil, .refused),
        (.tooLarge, 413, nil, .refused),
        (.malformedAnswer, 500, nil, .serverFailed),
        (.unreachable, 500, nil, .serverFailed),
        (.refused, 500, nil, .serverFailed),
        (.serverFailed, 500, nil, .serverFailed),
    ])
    func codesMapToStatusesAndBack(code: SyncError.Code, status: Int, cause: String?, client: SyncError.Code) throws {
        let error = SyncError(code, "why \(code)")
        #expect(SyncHTTP.status(of: code) == status)
        let body = SyncHTTP.errorBody(error)
        #expect(body["reason"]?.stringValue == "why \(code)")
        #expect(body["cause"]?.stringValue == cause)
        #expect(body.dictionaryValue?.count == (cause == nil ? 1 : 2))
        let read = SyncHTTP.error(status: status, body: try SyncWire.bytes(body))
        #expect(read.code == client)
        #expect(read.message == "the server answered \(status): why \(code)")
    }

    @Test func errorAnswersOfOtherServersAreReadToo() {
        let json = SyncHTTP.error(status: 401, body: Array(#"{"error":{"message":"no token"}}"#.utf8))
        #expect(json.code == .refused && json.message == "the server answered 401: no token")
        let plain = SyncHTTP.error(status: 502, body: Array("<html>bad gateway</html>".utf8))
        #expect(plain.code == .serverFailed && plain.message == "the server answered 502")
        let gone = SyncHTTP.error(status: 410, body: [])
        #expect(gone.code == .resyncNeeded && gone.message == "the server answered 410")
        #expect(SyncHTTP.error(status: 204, body: []).code == .refused)
    }

    @Test func aPushAnswerMustHoldOneResultPerMutation() throws {
        let push = SyncPush(
            clientID: "c",
            mutations: [SyncMutation(id: 1, key: "a", base: 0, body: [1]), .init(id: 2, key: "b", base: 0, body: nil)])
        let answer = SyncPushAnswer(outcomes: [.applied(revision: 1)], through: 3, mark: "m3")
        let body = try SyncWire.bytes(SyncWire.encode(answer))
        #expect {
            _ = try SyncHTTP.pushAnswer(body, to: push)
        } throws: { ($0 as? SyncError)?.code == .malformedAnswer }
        let whole = SyncPushAnswer(outcomes: [.applied(revision: 1), .applied(revision: 0)], through: 3, mark: "m3")
        #expect(try SyncHTTP.pushAnswer(try SyncWire.bytes(SyncWire.encode(whole)), to: push) == whole)
        #expect {
            _ = try SyncHTTP.batch(Array("not a property list".utf8))
        } throws: { ($0 as? SyncError)?.code == .malformedAnswer }
    }
}
