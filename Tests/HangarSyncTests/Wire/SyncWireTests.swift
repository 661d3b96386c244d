import HangarSync
import PropertyList
import Testing

/// Every message of the protocol through its binary property list and back, and what a reader refuses.
struct SyncWireTests {
    static let checkpoints = [
        SyncCheckpoint(storeID: "S", epoch: "E", through: 0, mark: ""),
        SyncCheckpoint(storeID: "S", epoch: "E", through: 12, mark: "m12", acknowledged: 15, acknowledgedMark: "m15"),
    ]
    static let items = [
        SyncItem(key: "caf\u{E9}", revision: 3, body: [0, 1, 2, 255]),
        SyncItem(key: "cafe\u{301}", revision: 4, body: nil),
        SyncItem(key: "empty", revision: 1, body: []),
    ]

    /// A value through the wire: encoded, written as a binary property list, read back.
    static func throughTheWire(_ value: PropertyList) throws -> PropertyList {
        try SyncWire.value(try SyncWire.bytes(value))
    }

    @Test func checkpointsRoundTrip() throws {
        for checkpoint in Self.checkpoints {
            #expect(try SyncWire.checkpoint(try Self.throughTheWire(SyncWire.encode(checkpoint))) == checkpoint)
        }
    }

    @Test func batchesRoundTripWithTheirKeysByteForByte() throws {
        for (checkpoint, isSnapshot) in zip(Self.checkpoints, [true, false]) {
            let batch = SyncBatch(
                checkpoint: checkpoint, items: Self.items, hasMore: !isSnapshot, isSnapshot: isSnapshot)
            let read = try SyncHTTP.batch(try SyncWire.bytes(SyncWire.encode(batch)))
            #expect(read == batch)
            // Canonically equivalent keys stay two keys, each with its own bytes.
            #expect(read.items.map { Array($0.key.utf8) } == Self.items.map { Array($0.key.utf8) })
        }
    }

    @Test func pushesRoundTrip() throws {
        let push = SyncPush(
            clientID: "device-1",
            mutations: [
                SyncMutation(id: 1, key: "a", base: 0, body: [1, 2]),
                SyncMutation(id: 2, key: "b", base: 7, supersedes: [1, 5], body: nil),
            ])
        #expect(try SyncWire.push(try Self.throughTheWire(SyncWire.encode(push))) == push)
    }

    @Test func pushAnswersRoundTrip() throws {
        let answer = SyncPushAnswer(
            outcomes: [
                .applied(revision: 2),
                .applied(revision: 3, current: Self.items[0]),
                .conflict(theirs: Self.items[1], base: nil),
                .conflict(theirs: Self.items[0], base: [9, 9]),
                .rejected(code: "invalidDocument", reason: "name: expected string"),
            ],
            through: 99, mark: "m99")
        #expect(try SyncWire.pushAnswer(try Self.throughTheWire(SyncWire.encode(answer))) == answer)
    }

    @Test(arguments: [
        PropertyList.string("not a batch"),
        ["checkpoint": SyncWire.encode(checkpoints[0]), "items": .string("no array")],
        ["checkpoint": .string("none"), "items": .array([])],
        ["checkpoint": SyncWire.encode(checkpoints[0]), "items": .array([["key": "k", "revision": 1]])],
        [
            "checkpoint": SyncWire.encode(checkpoints[0]),
            "items": .array([["key": "k", "revision": "1", "deleted": true]]),
        ],
    ])
    func malformedBatchesAreRefused(value: PropertyList) {
        #expect {
            _ = try SyncWire.batch(value)
        } throws: { ($0 as? SyncError)?.code == .malformedAnswer }
    }

    @Test(arguments: [
        PropertyList.dictionary(["clientID": "", "mutations": .array([])]),
        ["clientID": "a/b", "mutations": .array([])],
        ["clientID": "c", "mutations": .array([["id": 1, "key": "k", "base": 0]])],
        [
            "clientID": "c",
            "mutations": .array([["id": 1, "key": "k", "base": 0, "delete": true, "supersedes": ["x"]]]),
        ],
        ["mutations": .array([])],
    ])
    func malformedPushesAreInvalidRequests(value: PropertyList) {
        #expect {
            _ = try SyncWire.push(value)
        } throws: { ($0 as? SyncError)?.code == .invalidRequest }
    }

    @Test func anUnknownOutcomeIsMalformed() {
        let answer: PropertyList = ["results": .array([["outcome": "maybe"]]), "through": 1, "mark": "m"]
        #expect {
            _ = try SyncWire.pushAnswer(answer)
        } throws: { ($0 as? SyncError)?.code == .malformedAnswer }
    }
}
