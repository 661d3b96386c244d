import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

@testable import HangarSQLite

/// A document as deep as the decoders allow (511 containers) through every way in and out of a SQLite store:
/// blocking and async writes and reads, single writes, point loads, a reopen. Each must save it and give it back
/// whole, in debug and release builds: the bodies, the codecs and the write rules run on threads with stack enough
/// for that depth, whichever thread holds the writer's turn.
@Suite struct SQLiteDeepDocumentTests {
    static let deep = DeepDocuments.envelope()

    static func store() throws -> SQLiteStore {
        try SQLiteStore(path: try temporaryDirectory() + "/deep.sqlite")
    }

    @Test func theDeepDocumentIsAsDeepAsTheDecodersAllow() throws {
        #expect(DeepDocuments.depth(of: Self.deep) == DeepDocuments.deepestLevels)
        let bytes = try Self.deep.encoded(as: .binary)
        #expect(try PropertyList.decode(bytes).value == Self.deep)
        #expect(throws: (any Error).self) {
            try PropertyList.decode(try DeepDocuments.envelope(levels: 513).encoded(as: .binary))
        }
    }

    @Test func blockingWriteAndRead() throws {
        let store = try Self.store()
        try store.write { try $0.save(envelope: Self.deep, key: "deep", in: "deep") }
        let stored = try store.read { try $0.document(in: "deep", key: "deep") }
        #expect(try stored?.envelope() == Self.deep)
    }

    @Test func asyncWriteAndRead() async throws {
        let store = try Self.store()
        try await store.write { (writer: SQLiteWriteTransaction) in
            try writer.save(envelope: Self.deep, key: "deep", in: "deep")
        }
        let stored = try await store.read { (reader: SQLiteReadTransaction) in
            try reader.document(in: "deep", key: "deep")
        }
        #expect(try stored?.envelope() == Self.deep)
    }

    @Test func asyncBodiesThatAwait() async throws {
        let store = try Self.store()
        try await store.write { (writer: SQLiteWriteTransaction) async throws in
            await Task.yield()
            try await writer.save(envelope: Self.deep, key: "deep", in: "deep")
        }
        let envelope = try await store.read { (reader: SQLiteReadTransaction) async throws in
            await Task.yield()
            return try reader.document(in: "deep", key: "deep")?.envelope()
        }
        #expect(envelope == Self.deep)
    }

    @Test func singleWritesAndPointLoads() async throws {
        let store = try Self.store()
        // Sixteen at once: the later ones run on whichever thread holds the writer's turn.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask { try await store.save(envelope: Self.deep, key: "deep\(index)", in: "deep") }
            }
            try await group.waitForAll()
        }
        for index in 0..<16 {
            #expect(try await store.document(in: "deep", key: "deep\(index)")?.envelope() == Self.deep)
        }
        #expect(try await store.delete(key: "deep0", in: "deep"))
    }

    @Test func aReopenedStoreGivesItBack() throws {
        let path = try temporaryDirectory() + "/deep.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.write { try $0.save(envelope: Self.deep, key: "deep", in: "deep") }
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.read { try $0.document(in: "deep", key: "deep")?.envelope() } == Self.deep)
        #expect(try reopened.read { try $0.history(in: "deep", key: "deep") }.map(\.revision) == [1])
    }
}

/// A model as deep as a document may be: each level reads the next through the model's own reader.
struct DeepChain: VersionedDocument, Equatable, Sendable {
    static let collection = "chains"
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))

    var level: Int
    var next: [DeepChain]

    /// A chain of `levels` containers in all, counted as the decoders count them (each link is a dictionary
    /// holding an array).
    static func of(levels: Int) -> DeepChain {
        var chain = DeepChain(level: levels, next: [])
        var level = levels - 2
        while level >= 1 {
            chain = DeepChain(level: level, next: [chain])
            level -= 2
        }
        return chain
    }

    init(level: Int, next: [DeepChain]) {
        self.level = level
        self.next = next
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        level = try reader.read("level")
        next = try reader.readIfPresent("next") ?? []
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("level", level)
        writer.set("next", next.isEmpty ? nil : next)
        return writer.propertyList
    }
}

/// The same chain through the Codable bridge, whose generic containers take more stack a level: the document
/// holds a `Codable` link, encoded and decoded by ``PropertyListValueEncoder`` and ``PropertyListValueDecoder``.
struct DeepCodableChain: VersionedDocument, Equatable, Sendable {
    static let collection = "codable-chains"
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))

    /// One level of the chain.
    struct Link: Codable, Equatable, Sendable {
        var level: Int
        var next: [Link]
    }

    var root: Link

    static func of(levels: Int) -> DeepCodableChain {
        // The envelope is the first container; each link a dictionary holding an array.
        var link = Link(level: levels, next: [])
        var level = levels - 2
        while level >= 2 {
            link = Link(level: level, next: [link])
            level -= 2
        }
        return DeepCodableChain(root: link)
    }

    init(root: Link) {
        self.root = root
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        root = try PropertyListValueDecoder().decode(Link.self, from: try reader.read("root", as: PropertyList.self))
    }

    var propertyListRepresentation: PropertyList {
        // Ints and arrays always encode.
        ["root": (try? PropertyListValueEncoder().encode(root)) ?? [:]]
    }
}

/// Runs `body` where the blocking forms of the store's calls are the ones chosen.
private func blocking<Result>(_ body: () throws -> Result) rethrows -> Result {
    try body()
}

extension SQLiteDeepDocumentTests {
    static let chain = DeepChain.of(levels: DeepDocuments.deepestLevels)
    static let codableChain = DeepCodableChain.of(levels: DeepDocuments.deepestLevels)

    @Test func deepModelsThroughEveryWrite() async throws {
        let store = try Self.store()
        #expect(DeepDocuments.depth(of: ClassRegistry().encode(Self.chain)) >= DeepDocuments.deepestLevels - 1)
        _ = try blocking { try store.write { try $0.save(Self.chain, key: "blocking") } }
        try await store.write { (writer: SQLiteWriteTransaction) in try writer.save(Self.chain, key: "async") }
        try await store.save(Self.chain, key: "single")
        try await store.save(Self.codableChain, key: "single")
        try await store.write { (writer: SQLiteWriteTransaction) in try writer.save(Self.codableChain, key: "async") }
        for key in ["blocking", "async", "single"] {
            let loaded = try blocking { try store.read { try $0.load(DeepChain.self, key: key) } }
            #expect(loaded?.value == Self.chain)
            #expect(try await store.load(DeepChain.self, key: key)?.value == Self.chain)
        }
        for key in ["async", "single"] {
            #expect(try await store.load(DeepCodableChain.self, key: key)?.value == Self.codableChain)
        }
    }
}
