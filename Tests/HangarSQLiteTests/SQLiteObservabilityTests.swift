import Foundation
import HangarTestSupport
import Logging
import MetricsTestKit
import PropertyList
import Testing

@testable import Hangar
@testable import HangarSQLite

/// What a SQLite store logs and measures (<doc:Observability>): the operator's lines at their levels with
/// structured metadata, the counters and timers through an injected metrics factory, and never a document's
/// content in any record.
@Suite struct SQLiteObservabilityTests {
    /// The string every document of these tests carries: no record may ever hold it.
    static let secret = "SECRET-7f3a-do-not-log"

    static func observed(
        _ recorder: LogRecorder, _ metrics: TestMetrics, slow: Duration = .seconds(1),
        _ options: CollectionOptions = CollectionOptions()
    ) -> StoreConfiguration {
        var configuration = noteConfiguration(options)
        configuration.observability = StoreObservability(
            logger: recorder.logger, metricsFactory: metrics, slowTransactionThreshold: slow)
        return configuration
    }

    /// A Note envelope as stored by version 1 (`text`, not `body`); `title` as given.
    static func version1(title: PropertyList) -> PropertyList {
        ["majorVersion": 1, "minorVersion": 0, "title": title, "text": .string(secret)]
    }

    static func total(_ metrics: TestMetrics, _ label: String, collection: String? = "notes") -> Int64 {
        metrics.counters(label: label)
            .filter { counter in
                collection.map { wanted in counter.dimensions.contains { $0 == ("collection", wanted) } } ?? true
            }
            .reduce(0) { $0 + $1.totalValue }
    }

    static func checkNoContent(_ recorder: LogRecorder, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!recorder.records.isEmpty, sourceLocation: sourceLocation)
        for record in recorder.records {
            #expect(!record.description.contains(secret), "\(record)", sourceLocation: sourceLocation)
        }
    }

    @Test func migrationQuarantineConflictAndContentionAreLoggedAndCountedWithoutContent() async throws {
        let recorder = LogRecorder()
        let metrics = TestMetrics()
        let store = try SQLiteStore(
            path: try temporaryDirectory() + "/store.sqlite", store: Self.observed(recorder, metrics))
        try await store.write { transaction in
            try transaction.save(Note(title: Self.secret, body: Self.secret, tags: [Self.secret]), key: "current")
            try transaction.save(envelope: Self.version1(title: "old"), key: "old", in: "notes")
            try transaction.save(envelope: Self.version1(title: 42), key: "bad", in: "notes")
        }
        // Migrated on read: a debug line per document and the counter.
        #expect(try await store.read { try $0.load(Note.self, key: "old") }?.wasMigrated == true)
        let migrated = try #require(recorder.records("Document migrated").first)
        #expect(migrated.level == .debug)
        #expect(migrated.metadata["collection"] == "notes" && migrated.metadata["key"] == "old")
        #expect(migrated.metadata["from_version"] == "1.0" && migrated.metadata["engine"] == "sqlite")
        #expect(Self.total(metrics, "hangar_migrations_total") == 1)

        // Not readable on a single load: a warning with the code; quarantined in a batch read.
        #expect(throws: HangarError.self) { try store.read { try $0.load(Note.self, key: "bad") } }
        let unreadable = try #require(recorder.records("Document not readable").first)
        #expect(unreadable.level == .warning && unreadable.metadata["key"] == "bad")
        #expect(unreadable.metadata["code"] == HangarError.Code.undecodable.description)
        let batch = try await store.read { try $0.documents(Note.self) }
        #expect(batch.quarantined.map(\.key) == ["bad"])
        let quarantined = try #require(recorder.records("Document quarantined").first)
        #expect(quarantined.level == .warning && quarantined.metadata["collection"] == "notes")
        #expect(Self.total(metrics, "hangar_quarantined_total") == 1)
        #expect(Self.total(metrics, "hangar_undecodable_total") == 1)

        // A conflict is counted; an update meeting one on every attempt retries, then gives up with a warning.
        #expect(throws: HangarError.self) {
            try store.write { try $0.save(Note(title: "t", body: Self.secret), key: "current", expectedRevision: 7) }
        }
        await #expect(throws: HangarError.self) {
            try await store.update(Note.self, key: "current", maximumAttempts: 2) { note in
                note.body = Self.secret + "-changed"
                try store.write { try $0.save(Note(title: "other", body: Self.secret), key: "current") }
            }
        }
        let retried = try #require(recorder.records("Transaction retried").first)
        #expect(
            retried.level == .debug && retried.metadata["attempt"] == "2" && retried.metadata["reason"] == "conflict")
        let gaveUp = try #require(recorder.records("Gave up after repeated conflicts").first)
        #expect(gaveUp.level == .warning && gaveUp.metadata["attempt"] == "2" && gaveUp.metadata["key"] == "current")
        #expect(Self.total(metrics, "hangar_conflicts_total") == 3)
        #expect(Self.total(metrics, "hangar_transaction_retries_total", collection: nil) == 1)
        #expect(Self.total(metrics, "hangar_contention_total") == 1)

        // The bulk upgrade: one info line with the counts; the unreadable document quarantined, once.
        let report = try await store.upgrade(Note.self)
        #expect(report.upgraded == ["old"] && report.quarantined.map(\.key) == ["bad"])
        let upgraded = try #require(recorder.records("Collection upgraded").first)
        #expect(
            upgraded.level == .info && upgraded.metadata["upgraded"] == "1" && upgraded.metadata["quarantined"] == "1")
        #expect(recorder.records("Document quarantined").count == 2)

        #expect(try await store.write { try $0.delete(key: "old", in: "notes") })
        #expect(Self.total(metrics, "hangar_deletes_total") == 1)
        #expect(Self.total(metrics, "hangar_saves_total") >= 6)
        #expect(Self.total(metrics, "hangar_loads_total") >= 3)
        Self.checkNoContent(recorder)
    }

    @Test func transactionsAreTimedAndSlowOnesWarned() throws {
        let recorder = LogRecorder()
        let metrics = TestMetrics()
        let store = try SQLiteStore.inMemory(store: Self.observed(recorder, metrics, slow: .zero))
        try store.write { try $0.save(Note(title: Self.secret, body: Self.secret), key: "k") }
        _ = try store.read { try $0.load(Note.self, key: "k") }
        let timers = metrics.timers(label: "hangar_transaction_duration_seconds")
        let kinds = Set(timers.compactMap { timer in timer.dimensions.first { $0.0 == "kind" }?.1 })
        #expect(kinds == ["read", "write"])
        #expect(timers.allSatisfy { !$0.values.isEmpty && $0.dimensions.contains { $0 == ("engine", "sqlite") } })
        let slow = recorder.records("Slow transaction")
        #expect(Set(slow.compactMap { $0.metadata["kind"] }) == ["read", "write"])
        #expect(slow.allSatisfy { $0.level == .warning && $0.metadata["duration_ms"] != nil })

        // Under the default threshold (1 s), nothing is slow.
        let quiet = LogRecorder()
        let fast = try SQLiteStore.inMemory(store: Self.observed(quiet, TestMetrics()))
        try fast.write { try $0.save(Note(title: "t", body: "b"), key: "k") }
        #expect(quiet.records("Slow transaction").isEmpty)
        Self.checkNoContent(recorder)
    }

    @Test func openingCreatingAndIndexingAreLogged() throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let first = LogRecorder()
        try SQLiteStore(path: path, store: Self.observed(first, TestMetrics())).write {
            try $0.save(Note(title: Self.secret, body: Self.secret), key: "k")
        }
        let created = try #require(first.records("Store created").first)
        #expect(created.level == .info && created.metadata["path"] == path)
        let opened = try #require(first.records("Store opened").first)
        #expect(opened.level == .info && opened.metadata["schema_version"] == "\(SQLiteSchema.currentVersion)")

        let second = LogRecorder()
        let options = CollectionOptions(indexes: [.path("title")])
        _ = try SQLiteStore(path: path, store: Self.observed(second, TestMetrics(), options))
        #expect(second.records("Store created").isEmpty)
        let indexed = try #require(second.records("Indexes built").first)
        #expect(indexed.level == .info && indexed.metadata["collection"] == "notes")
        #expect(indexed.metadata["indexes"]?.contains("title") == true && indexed.metadata["documents"] == "1")
        Self.checkNoContent(second)
    }

    @Test func aMirrorFailureIsLoggedAndStillReported() throws {
        let folder = try temporaryDirectory()
        // The mirror folder is a file: no mirror can be written into it.
        let blocked = folder + "/blocked"
        try Data().write(to: URL(fileURLWithPath: blocked))
        let recorder = LogRecorder()
        let reported = EventLog()
        let store = try SQLiteStore(
            configuration: sqliteConfiguration(
                folder + "/store.sqlite", Self.observed(recorder, TestMetrics()), mirroring: blocked,
                mirrorFailures: { reported.append($0.key ?? "") }))
        try store.write { try $0.save(Note(title: Self.secret, body: Self.secret), key: "k") }
        let failure = try #require(recorder.records("Mirror file not written").first)
        #expect(
            failure.level == .warning && failure.metadata["collection"] == "notes" && failure.metadata["key"] == "k")
        #expect(reported.lines == ["k"])
        Self.checkNoContent(recorder)
    }

    @Test func theDefaultsLogNothingAndMeasureWithTheGlobalFactory() throws {
        let defaults = StoreObservability()
        #expect(defaults.isLoggerSilent)
        #expect(defaults.metricsFactory == nil)
        #expect(defaults.slowTransactionThreshold == .seconds(1))
        var configuration = StoreConfiguration()
        configuration.logger = LogRecorder().logger
        #expect(!configuration.observability.isLoggerSilent)
    }
}
