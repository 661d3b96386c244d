import CoreMetrics
package import Logging
import Synchronization

/// A store's log and metrics, made once when it opens (``StoreObservability`` plus the engine's name) and
/// reached through ``StoreConfiguration/instruments`` by the rules that decide what happened: decoding,
/// migrating and quarantining in ``DocumentRules``, durations and retries in the engines' transaction runners.
///
/// Records carry structured metadata (`engine`, `collection`, `key`, `code`, `attempt`, `duration_ms`, `kind`)
/// and never a document's content. Counters are made once per store (per collection on first use); with the
/// no-op metrics backend none is made or touched.
package final class StoreInstruments: Sendable {
    /// What a transaction does, the `kind` dimension of durations.
    package enum TransactionKind: String, Sendable {
        /// A read transaction.
        case read
        /// A write transaction.
        case write
    }

    /// The logger, with the `engine` metadata set.
    package let logger: Logger
    /// `sqlite` or `postgres`: the `engine` dimension and metadata.
    package let engine: String
    private let factory: any MetricsFactory
    /// Whether metrics are recorded at all (not with the no-op factory).
    private let measures: Bool
    private let slowThreshold: Duration
    private let readDuration: CoreMetrics.Timer?
    private let writeDuration: CoreMetrics.Timer?
    private let counters = Mutex<[CounterKey: Counter]>([:])

    /// A counter's label and dimensions, the key it is kept under (hashed as it is: nothing joined per call).
    private struct CounterKey: Hashable {
        let label: String
        let collection: String?
        let dimension: String?
        let value: String?
    }

    /// The instruments of a store on `engine`, as `observability` says.
    package init(engine: String, observability: StoreObservability) {
        var logger = observability.logger
        logger[metadataKey: "engine"] = .string(engine)
        self.logger = logger
        self.engine = engine
        let factory = observability.metricsFactory ?? MetricsSystem.factory
        let measures = !(factory is NOOPMetricsHandler)
        self.factory = factory
        self.measures = measures
        slowThreshold = observability.slowTransactionThreshold
        func timer(_ kind: TransactionKind) -> CoreMetrics.Timer? {
            guard measures else { return nil }
            return CoreMetrics.Timer(
                label: "hangar_transaction_duration_seconds",
                dimensions: [("engine", engine), ("kind", kind.rawValue)],
                factory: factory)
        }
        readDuration = timer(.read)
        writeDuration = timer(.write)
    }

    // MARK: Counting

    /// Adds one to the counter `label`, with the `engine` dimension, `collection` when given, and one more
    /// dimension when given (each label always has the same dimensions). The counter is made on first use
    /// and kept.
    package func count(_ label: String, collection: String? = nil, _ dimension: (name: String, value: String)? = nil) {
        guard measures else { return }
        let id = CounterKey(label: label, collection: collection, dimension: dimension?.name, value: dimension?.value)
        let counter = counters.withLock { counters in
            if let counter = counters[id] { return counter }
            var dimensions = [("engine", engine)]
            if let collection { dimensions.append(("collection", collection)) }
            if let dimension { dimensions.append((dimension.name, dimension.value)) }
            let counter = Counter(label: label, dimensions: dimensions, factory: factory)
            counters[id] = counter
            return counter
        }
        counter.increment()
    }

    // MARK: Transactions

    /// Records how long a transaction of `kind` took (since `start`), and warns when it took longer than the
    /// slow-transaction threshold.
    package func finished(_ kind: TransactionKind, since start: ContinuousClock.Instant) {
        let duration = ContinuousClock.now - start
        if measures {
            let (seconds, attoseconds) = duration.components
            (kind == .read ? readDuration : writeDuration)?
                .recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
        }
        guard duration > slowThreshold else { return }
        count("hangar_slow_transactions_total", ("kind", kind.rawValue))
        logger.warning(
            "Slow transaction",
            metadata: ["kind": .string(kind.rawValue), "duration_ms": .stringConvertible(Self.milliseconds(duration))])
    }

    /// A transaction run again after `error` (a conflict, a serialization failure, a deadlock): `attempt` is
    /// the attempt about to start.
    package func retrying(
        attempt: Int, reason: String, error: HangarError, collection: String? = nil, key: String? = nil
    ) {
        count("hangar_transaction_retries_total", ("reason", reason))
        var metadata: Logger.Metadata = [
            "attempt": .stringConvertible(attempt), "code": .string(error.code.description), "reason": .string(reason),
        ]
        if let collection { metadata["collection"] = .string(collection) }
        if let key { metadata["key"] = .string(key) }
        logger.debug("Transaction retried", metadata: metadata)
    }

    /// Every attempt of an update met a conflict: it gave up.
    package func gaveUp(attempts: Int, collection: String, key: String) {
        count("hangar_contention_total", collection: collection)
        logger.warning(
            "Gave up after repeated conflicts",
            metadata: [
                "attempt": .stringConvertible(attempts), "collection": .string(collection), "key": .string(key),
                "code": .string(HangarError.Code.contention.description),
            ])
    }

    // MARK: The store

    /// Indexes built over a collection's stored documents (when a store opens with new definitions, or on a
    /// reindex).
    package func indexesBuilt(_ indexes: [String], collection: String, documents: Int) {
        logger.info(
            "Indexes built",
            metadata: [
                "collection": .string(collection), "indexes": .array(indexes.map { .string($0) }),
                "documents": .stringConvertible(documents),
            ])
    }

    // MARK: Documents

    /// A stored document migrated in memory from `from` to `to` as it was read.
    package func migrated(collection: String, key: String, from: DocumentVersion, to: DocumentVersion) {
        count("hangar_migrations_total", collection: collection)
        logger.debug(
            "Document migrated",
            metadata: [
                "collection": .string(collection), "key": .string(key), "from_version": .stringConvertible(from),
                "to_version": .stringConvertible(to),
            ])
    }

    /// A document that could not be read (thrown to the reader), or that was quarantined (`quarantined`:
    /// listed in a batch or an upgrade report instead).
    package func unreadable(collection: String, key: String, error: HangarError, quarantined: Bool) {
        count(quarantined ? "hangar_quarantined_total" : "hangar_undecodable_total", collection: collection)
        logger.warning(
            quarantined ? "Document quarantined" : "Document not readable",
            metadata: ["collection": .string(collection), "key": .string(key), "code": .string(error.code.description)])
    }

    /// A write refused by its expected revision.
    package func conflict(collection: String, key: String) {
        count("hangar_conflicts_total", collection: collection)
        logger.debug("Revision conflict", metadata: ["collection": .string(collection), "key": .string(key)])
    }

    /// `duration` in milliseconds (to the microsecond), for `duration_ms`.
    package static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1_000 + Double(attoseconds) / 1e15) * 1_000).rounded() / 1_000
    }
}
