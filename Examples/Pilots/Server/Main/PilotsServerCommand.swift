import ArgumentParser
import Foundation
import Hangar
import HangarPostgres
import HangarSQLite
import Hummingbird
import Logging
import Metrics
import NIOCore
import PilotsHTTP
import Prometheus
import ServiceLifecycle

/// `swift run pilots-server`: the Pilots store over HTTP, on the tour's SQLite store or on PostgreSQL.
@main
struct PilotsServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pilots-server",
        abstract: "The Pilots store over HTTP: documents with revisions as ETags, and a live change stream.",
        discussion: """
            Serves the store `swift run pilots` uses (by default \
            \(SQLiteStore.defaultPath(application: "HangarPilots"))), or --db PATH, or a PostgreSQL database with \
            --url postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE. Prints `listening on http://HOST:PORT` once it \
            accepts connections; SIGTERM or SIGINT finish the requests in flight, end the change streams and close \
            the store.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (printed in the `listening on` line).")
    var port = 8080

    @Option(help: "The store file. Default: the platform's data folder for HangarPilots, as `pilots` uses.")
    var db: String?

    @Option(help: "A PostgreSQL store instead: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var url: String?

    @Option(help: "With --url: the schema the store's tables live in. Default: the URL's `schema`, else hangar.")
    var schema: String?

    @Option(help: "The largest request body, in bytes (larger: 413).")
    var maxBodySize = 1 << 20

    func validate() throws {
        if db != nil && url != nil { throw ValidationError("Give --db PATH or --url URL, not both.") }
        if schema != nil && url == nil {
            throw ValidationError("--schema names a PostgreSQL schema: use it with --url.")
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        if maxBodySize < 1 { throw ValidationError("--max-body-size must be positive.") }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "pilots-server")
        logger.logLevel = .info
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        var options = PilotsAPIOptions()
        options.maximumBodySize = maxBodySize
        options.metricsText = { registry.emitToBuffer() }
        do {
            if let url {
                var configuration = try PostgresStoreConfiguration(url: url, schema: schema, store: .pilotsServer())
                configuration.acquireTimeout = .seconds(5)
                configuration.logger = logger
                let store = try await PostgresStore(configuration: configuration)
                options.engine = "postgresql"
                options.schemaVersion = PostgresStore.schemaVersion
                do {
                    try await serve(store, options: options, logger: logger)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            } else {
                var configuration = StoreConfiguration.pilotsServer()
                configuration.logger = logger
                let store = try SQLiteStore(
                    path: db ?? SQLiteStore.defaultPath(application: "HangarPilots"), store: configuration)
                options.engine = "sqlite"
                options.schemaVersion = SQLiteStore.schemaVersion
                try await serve(store, options: options, logger: logger)
            }
        } catch {
            let reason = url.map { String(describing: error).replacingOccurrences(of: $0, with: "--url") }
            FileHandle.standardError.write(Data("pilots-server: \(reason ?? String(describing: error))\n".utf8))
            throw ExitCode(1)
        }
        logger.info("pilots-server: store closed, exiting")
    }

    /// Runs the HTTP application over `store` until SIGTERM or SIGINT, then shuts down gracefully.
    private func serve<S: DocumentStore>(_ store: S, options: PilotsAPIOptions, logger: Logger) async throws {
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: MetricsMiddleware())
        PilotsAPI(store: store, options: options).addRoutes(to: router)
        let host = self.host
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: "pilots-server"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
            },
            logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: app),
                    .init(service: ShutdownAnnouncer(logger: logger), successTerminationBehavior: .ignore),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}

/// Logs one line when graceful shutdown begins.
struct ShutdownAnnouncer: Service {
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is stopping without a graceful shutdown
        }
        logger.info("pilots-server: shutting down: finishing requests in flight and ending change streams")
    }
}
