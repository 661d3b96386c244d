import Foundation
import Hangar
import HangarTestSupport
import Logging
import MetricsTestKit
import PropertyList
import Testing

@testable import HangarPostgres

/// A versioned document for the observability test: v1 stored `text`; v2 calls it `body`.
struct ObservedMemo: VersionedDocument, Sendable {
    static let collection = "memos"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "rename text to body") { content in
                var content = content
                content["body"] = content.removeValue(forKey: "text")
                return content
            }
        ])

    var title: String
    var body: String

    init(title: String, body: String) {
        self.title = title
        self.body = body
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        title = try reader.read("title")
        body = try reader.read("body")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("title", title)
        writer.set("body", body)
        return writer.propertyList
    }
}

/// What the PostgreSQL store logs and measures (the SQLite store's is `SQLiteObservabilityTests`): its lines with
/// `engine` `postgres` and the server named without its password, the counters and timers through an injected
/// factory, and never a document's content in any record.
@Suite(.enabled(if: TestPostgres.shouldRun)) struct PostgresObservabilityTests {
    static let secret = "SECRET-91c2-do-not-log"

    @Test func linesAndMetricsNeverHoldContent() async throws {
        let recorder = LogRecorder()
        let metrics = TestMetrics()
        let configuration = try testConfiguration("observability") { configuration in
            configuration.logger = recorder.logger
            configuration.observability.metricsFactory = metrics
            configuration.observability.slowTransactionThreshold = .zero
        }
        let store = try await PostgresStore(configuration: configuration)
        do {
            try await exercise(store, recorder: recorder, metrics: metrics)
        } catch {
            await store.close()
            try? await dropSchema(of: configuration)
            throw error
        }
        await store.close()
        try await dropSchema(of: configuration)
        let closed = try #require(recorder.records("Store closed").first)
        #expect(closed.metadata["database"] == configuration.endpointDescription)
        // The test server's password is its user's name: look for the URL form `user:password@`.
        let credentials = "\(configuration.client.username):\(configuration.client.password ?? "")@"
        #expect(!configuration.endpointDescription.contains(credentials))
        for record in recorder.records {
            #expect(!record.description.contains(Self.secret), "\(record)")
            #expect(!record.description.contains(credentials), "\(record)")
        }
    }

    private func exercise(_ store: PostgresStore, recorder: LogRecorder, metrics: TestMetrics) async throws {
        let opened = try #require(recorder.records("Store opened").first)
        #expect(opened.level == .info && opened.metadata["engine"] == "postgres")
        #expect(opened.metadata["database"] == store.postgresConfiguration.endpointDescription)
        #expect(opened.metadata["schema"] == store.postgresConfiguration.schema)
        #expect(recorder.records("Store created").first?.metadata["schema_version"] != nil)

        let old: PropertyList = ["majorVersion": 1, "minorVersion": 0, "title": "old", "text": .string(Self.secret)]
        let bad: PropertyList = ["majorVersion": 2, "minorVersion": 0, "title": 42, "body": .string(Self.secret)]
        try await store.write { transaction in
            try await transaction.save(ObservedMemo(title: Self.secret, body: Self.secret), key: "current")
            try await transaction.save(envelope: old, key: "old", in: "memos")
            try await transaction.save(envelope: bad, key: "bad", in: "memos")
        }
        let batch = try await store.read { try await $0.documents(ObservedMemo.self) }
        #expect(batch.quarantined.map(\.key) == ["bad"])
        let quarantined = try #require(recorder.records("Document quarantined").first)
        #expect(quarantined.level == .warning && quarantined.metadata["key"] == "bad")
        #expect(recorder.records("Document migrated").first?.metadata["key"] == "old")

        await #expect(throws: HangarError.self) {
            try await store.write {
                try await $0.save(ObservedMemo(title: "t", body: Self.secret), key: "current", expectedRevision: 9)
            }
        }
        #expect(recorder.records("Revision conflict").first?.metadata["key"] == "current")
        #expect(try await store.write { try await $0.delete(key: "old", in: "memos") })

        func total(_ label: String) -> Int64 {
            metrics.counters(label: label).filter { $0.dimensions.contains { $0 == ("engine", "postgres") } }
                .reduce(0) { $0 + $1.totalValue }
        }
        #expect(total("hangar_quarantined_total") == 1)
        #expect(total("hangar_migrations_total") == 1)
        #expect(total("hangar_conflicts_total") == 1)
        #expect(total("hangar_deletes_total") == 1)
        #expect(total("hangar_saves_total") == 3)
        #expect(total("hangar_loads_total") == 2)
        let kinds = Set(
            metrics.timers(label: "hangar_transaction_duration_seconds").compactMap { timer in
                timer.dimensions.first { $0.0 == "kind" }?.1
            })
        #expect(kinds == ["read", "write"])
        #expect(!recorder.records("Slow transaction").isEmpty)
    }
}
