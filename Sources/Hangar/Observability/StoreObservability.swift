public import CoreMetrics
public import Logging

/// How a store reports what it does: the swift-log `Logger` it logs to, the swift-metrics factory its counters
/// and timers come from, and when a transaction counts as slow. Every engine reads it from
/// ``StoreConfiguration/observability`` (the PostgreSQL store through its `store` configuration).
///
/// By default nothing is printed (a logger that drops every record, as a library should until the app passes
/// its own) and metrics go to the global `MetricsSystem` (which does nothing until the app bootstraps a
/// backend). No record and no metric ever holds a document's content: collections, keys, error codes,
/// revisions and versions only. See <doc:Observability>.
public struct StoreObservability: Sendable {
    /// Where the store logs; a logger that drops every record by default.
    public var logger: Logger
    /// The factory the store's counters and timers are made by, once per store; `nil` (the default) means
    /// `MetricsSystem.factory` as it is when the store opens.
    public var metricsFactory: (any MetricsFactory)?
    /// A transaction that takes longer than this is logged as a warning; 1 s by default.
    public var slowTransactionThreshold: Duration

    /// Logs to `logger` (dropping every record by default), measures with `metricsFactory` (the global one
    /// by default), and warns about transactions slower than `slowTransactionThreshold`.
    public init(
        logger: Logger = StoreObservability.silentLogger, metricsFactory: (any MetricsFactory)? = nil,
        slowTransactionThreshold: Duration = .seconds(1)
    ) {
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.slowTransactionThreshold = slowTransactionThreshold
    }

    /// A logger that drops every record: the default, so the library never prints unasked.
    @usableFromInline package static var silentLogger: Logger {
        Logger(label: "hangar", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Whether ``logger`` drops every record (the default), so a report with nowhere else to go (a mirror
    /// failure without a ``StoreConfiguration/mirrorFailureHandler``) goes to standard error instead.
    package var isLoggerSilent: Bool {
        logger.handler is SwiftLogNoOpLogHandler
    }
}

extension StoreConfiguration {
    /// Where the store logs (``StoreObservability/logger``): a logger that drops every record by default.
    public var logger: Logger {
        get { observability.logger }
        set { observability.logger = newValue }
    }
}
