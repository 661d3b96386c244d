import ArgumentParser
import Foundation
import Hangar
import HangarSQLite
import Logging
import Metrics
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

    @Option(
        name: .customLong("replica-url"),
        help: "With --url: a read replica (a streaming standby of that database); repeatable. Reads go to fit replicas."
    )
    var replicaURLs: [String] = []

    @Option(
        name: .customLong("listen-url"),
        help: "With --url: the primary's direct URL for the change feed's LISTEN, when --url goes through PgBouncer.")
    var listenURL: String?

    @Option(help: "The largest request body, in bytes (larger: 413).")
    var maxBodySize = 1 << 20

    @Option(
        help: "The least severe log level written: trace, debug, info (each request), notice, warning, error, critical."
    )
    var logLevel = "info"

    @Option(
        help: ArgumentHelp(
            "A file holding the raw bytes of an HS256 key: every route but /health then needs "
                + "`Authorization: Bearer JWT` signed with it (`sub`: the user), and each user sees only their own "
                + "documents. Without it the server is open.",
            valueName: "FILE"))
    var authKey: String?

    @Flag(help: "Serve Hangar Studio (read-only) at /studio, behind --auth-key when given.")
    var studio = false

    @Option(help: "With --studio and --auth-key: a user (token sub) who may open the studio; repeatable.")
    var studioUser: [String] = []

    func validate() throws {
        if db != nil && url != nil { throw ValidationError("Give --db PATH or --url URL, not both.") }
        if !studioUser.isEmpty && (!studio || authKey == nil) {
            throw ValidationError("--studio-user names who may open the studio: use it with --studio and --auth-key.")
        }
        if !replicaURLs.isEmpty && url == nil {
            throw ValidationError("--replica-url names a read replica of the --url database: use it with --url.")
        }
        if listenURL != nil && url == nil {
            throw ValidationError("--listen-url names the --url database's primary: use it with --url.")
        }
        if schema != nil && url == nil {
            throw ValidationError("--schema names a PostgreSQL schema: use it with --url.")
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        if maxBodySize < 1 { throw ValidationError("--max-body-size must be positive.") }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "pilots-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let location: PilotsServerConfiguration.StoreLocation =
            if let url { .postgres(url: url, schema: schema) } else {
                .sqlite(path: db ?? SQLiteStore.defaultPath(application: "HangarPilots"))
            }
        var configuration = PilotsServerConfiguration(store: location, logger: logger)
        configuration.replicaURLs = replicaURLs
        configuration.listenURL = listenURL
        configuration.host = host
        configuration.port = port
        configuration.api.maximumBodySize = maxBodySize
        configuration.api.metricsText = { registry.emitToBuffer() }
        if let authKey {
            guard let key = FileManager.default.contents(atPath: authKey), key.count >= 32 else {
                FileHandle.standardError.write(
                    Data("pilots-server: --auth-key \(authKey): no such file, or shorter than 32 bytes\n".utf8))
                throw ExitCode(1)
            }
            configuration.api.authKey = Array(key)
        }
        configuration.api.studio = studio
        configuration.api.studioUsers = studioUser
        configuration.onListening = { url in FileHandle.standardOutput.write(Data("listening on \(url)\n".utf8)) }
        do {
            let app = try await buildApplication(configuration)
            if authKey == nil {
                logger.warning(
                    "pilots-server: no --auth-key: every route is open to anyone, one scope for all documents")
            }
            // The application's own group runs the store and the HTTP server; this one adds the signals and the
            // line that says shutdown began (it is stopped first, so that line comes before the server stops).
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [
                        .init(service: app),
                        .init(service: ShutdownAnnouncer(logger: logger), successTerminationBehavior: .ignore),
                    ],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger))
            try await group.run()
        } catch {
            let reason = url.map { String(describing: error).replacingOccurrences(of: $0, with: "--url") }
            FileHandle.standardError.write(Data("pilots-server: \(reason ?? String(describing: error))\n".utf8))
            throw ExitCode(1)
        }
        logger.info("pilots-server: store closed, exiting")
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
