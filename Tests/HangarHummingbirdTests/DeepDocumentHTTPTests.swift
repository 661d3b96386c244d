import Foundation
import Hangar
import HangarHummingbird
import HangarSQLite
import HangarSync
import HangarTestSupport
import Hummingbird
import HummingbirdTesting
import PropertyList
import Testing

/// A document as deep as the decoders allow (511 containers) through the server's ways in and out, on a real
/// loopback port with a real HTTP client: PUT and GET in binary and XML, and a sync push. Each must store it and give
/// it back whole (the request's decoding, the store's checks, the answer's encoding run on threads with stack enough
/// for that depth), in debug and release builds.
@Suite struct DeepDocumentHTTPTests {
    static let deep = DeepDocuments.envelope()
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))

    /// The routes over a store whose collection `deep` takes any envelope of version 1.0, on a free loopback port
    /// (Hummingbird's live test client speaks HTTP to it over a socket).
    static func serving(_ body: @Sendable (SQLiteStore, any TestClientProtocol) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.collections["deep"] = CollectionOptions(history: .keepAll, format: format)
        let store = try SQLiteStore(path: directory.path + "/server.sqlite", store: configuration)
        let routes = HangarRoutes(store: store, collections: [.envelopes("deep", format: format)])
        let app = Application(
            router: routes.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        do {
            try await app.test(.live) { client in try await body(store, client) }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test func aDeepDocumentPutAndGetInBinaryAndXML() async throws {
        #expect(DeepDocuments.depth(of: Self.deep) == DeepDocuments.deepestLevels)
        try await Self.serving { store, client in
            let binary = try Self.deep.encoded(as: .binary)
            let put = try await client.send(
                .put, "/deep/binary", headers: ["Content-Type": "application/x-plist"], body: binary)
            #expect(put.status == 201, "\(put.text)")
            let xml = try Self.deep.encoded(as: .xml)
            let putXML = try await client.send(
                .put, "/deep/xml", headers: ["Content-Type": "application/x-plist+xml"], body: xml)
            #expect(putXML.status == 201, "\(putXML.text)")
            for key in ["binary", "xml"] {
                let stored = try #require(try await store.document(in: "deep", key: key))
                #expect(try PropertyList(binary: stored.body) == Self.deep)
                let getBinary = try await client.send(.get, "/deep/" + key, headers: ["Accept": "application/x-plist"])
                #expect(getBinary.status == 200)
                #expect(try PropertyList(binary: getBinary.body) == Self.deep)
                let getXML = try await client.send(
                    .get, "/deep/" + key, headers: ["Accept": "application/x-plist+xml"])
                #expect(getXML.status == 200)
                #expect(try PropertyList(xml: getXML.body) == Self.deep)
            }
        }
    }

    @Test func aDeepDocumentInASyncPush() async throws {
        try await Self.serving { store, client in
            let body = try Self.deep.encoded(as: .binary)
            let push = SyncPush(
                clientID: "device", mutations: [SyncMutation(id: 1, key: "pushed", base: 0, body: body)])
            let answer = try await client.send(
                .post, "/sync/deep/push", headers: ["Content-Type": SyncWire.mediaType],
                body: try SyncWire.bytes(SyncWire.encode(push)))
            #expect(answer.status == 200, "\(answer.text)")
            let outcomes = try SyncWire.pushAnswer(try SyncWire.value(answer.body)).outcomes
            #expect(outcomes == [.applied(revision: 1)])
            let stored = try #require(try await store.document(in: "deep", key: "pushed"))
            #expect(try PropertyList(binary: stored.body) == Self.deep)
        }
    }
}
