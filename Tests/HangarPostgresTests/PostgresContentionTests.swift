import Foundation
import Hangar
import HangarPostgres
import HangarTestSupport
import PropertyList
import Testing

/// A counter, the hot document of the contention test.
struct HotCounter: VersionedDocument, Sendable {
    static let collection = "counters"
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))

    var count: Int

    init(count: Int) { self.count = count }

    init(propertyList: PropertyList) throws(HangarError) {
        count = try DictionaryReader(propertyList).read("count")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("count", count)
        return writer.propertyList
    }
}

/// Contention: 8 writers (each an instance of its own: a store with its own pool) increment counters with the
/// update helper (read, change, save with the expected revision, again on a conflict), on 1, 10 and 100 hot
/// documents. No update is lost: every counter ends at its number of acknowledged updates (and its revision one
/// above). The conflict rate (retries per update) is printed on standard error, one line per case.
@Suite(.enabled(if: TestPostgres.shouldRun), .serialized) struct PostgresContentionTests {
    static let writers = 8
    static let updatesPerWriter = 15

    @Test(arguments: [1, 10, 100]) func eightWritersLoseNoUpdate(hotDocuments: Int) async throws {
        let started = Date()
        var configuration = try PostgresStoreConfiguration(
            url: try TestPostgres.requireURL(), schema: TestPostgres.uniqueSchemaName("contention\(hotDocuments)"))
        configuration.poolSize = 2
        let keys = (0..<hotDocuments).map { "c\($0)" }
        let first = try await PostgresStore(configuration: configuration)
        try await first.write { transaction in
            for key in keys { try await transaction.save(HotCounter(count: 0), key: key) }
        }
        var stores = [first]
        for _ in 1..<Self.writers { stores.append(try await PostgresStore(configuration: configuration)) }
        let attempts = SharedCount()
        let acknowledged = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for (writer, store) in stores.enumerated() {
                group.addTask {
                    var random = SeededGenerator(seed: UInt64(writer + 1) * 7919)
                    var done: [String: Int] = [:]
                    for _ in 0..<Self.updatesPerWriter {
                        let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                        try await store.update(HotCounter.self, key: key, maximumAttempts: 10_000) { counter in
                            attempts.add(1)
                            counter.count += 1
                        }
                        done[key, default: 0] += 1
                    }
                    return done
                }
            }
            var total: [String: Int] = [:]
            for try await done in group { total.merge(done, uniquingKeysWith: +) }
            return total
        }
        let stored = try await first.read { transaction in
            var stored: [String: (count: Int, revision: Int)] = [:]
            for key in keys {
                if let loaded = try await transaction.load(HotCounter.self, key: key) {
                    stored[key] = (loaded.value.count, loaded.revision)
                }
            }
            return stored
        }
        let updates = Self.writers * Self.updatesPerWriter
        #expect(acknowledged.values.reduce(0, +) == updates)
        for key in keys {
            #expect(stored[key]?.count == acknowledged[key] ?? 0, "\(key): lost updates")
            #expect(stored[key]?.revision == (acknowledged[key] ?? 0) + 1, "\(key): revisions")
        }
        for store in stores { await store.close() }
        try await dropSchema(of: configuration)
        let retries = attempts.value - updates
        FileHandle.standardError.write(
            Data(
                ("PostgresContentionTests: \(Self.writers) writers, \(hotDocuments) hot documents: \(updates) updates, "
                    + "\(retries) retries, "
                    + String(
                        format: "%.2f retries per update, %.1f s\n", Double(retries) / Double(updates),
                        Date().timeIntervalSince(started))).utf8))
    }
}
