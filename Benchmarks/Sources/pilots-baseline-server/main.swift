// pilots-baseline-server: the `server` section's baseline (Benchmarks/README.md, "The server rows"). The Pilots
// routes of pilots-server written the way an app team writes them by hand today: Hummingbird 2, a Codable mirror
// with PropertyListEncoder/Decoder, a plain `pilots(key, revision, body)` table in SQLite or PostgreSQL.
//
//   pilots-baseline-server --port 0 (--db PATH | --url postgres://… [--schema NAME])
//
// Prints `listening on http://HOST:PORT` once it accepts connections.
import Foundation
import Hummingbird
import Logging
import PostgresNIO

struct ServerOptions {
    var host = "127.0.0.1"
    var port = 8080
    var databasePath: String?
    var postgresURL: String?
    var schema = "pilots_baseline"

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw TableError("\(flag) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--host": host = try value(argument)
            case "--port":
                guard let port = Int(try value(argument)) else { throw TableError("--port needs a number") }
                self.port = port
            case "--db": databasePath = try value(argument)
            case "--url": postgresURL = try value(argument)
            case "--schema": schema = try value(argument)
            default: throw TableError("unknown argument \(argument)")
            }
        }
        guard (databasePath == nil) != (postgresURL == nil) else { throw TableError("give one of --db or --url") }
    }
}

/// A `postgres://user:password@host:port/database` URL as a client configuration (no TLS: loopback servers).
func postgresConfiguration(_ url: String) throws -> PostgresClient.Configuration {
    guard let components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true,
        let host = components.host, let user = components.user
    else { throw TableError("not a postgres:// URL: \(url)") }
    let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : nil
    var configuration = PostgresClient.Configuration(
        host: host, port: components.port ?? 5432, username: user, password: components.password,
        database: database, tls: .disable)
    configuration.options.maximumConnections = 16
    return configuration
}

func runServer(_ options: ServerOptions) async throws {
    var logger = Logger(label: "pilots-baseline-server")
    logger.logLevel = .warning
    let router = Router()
    // The client's pool runs for the whole process (its task ends with it).
    var running: Task<Void, Never>?
    defer { running?.cancel() }
    if let path = options.databasePath {
        PilotRoutes(table: try SQLitePilotTable(path: path)).add(to: router)
    } else if let url = options.postgresURL {
        let client = PostgresClient(configuration: try postgresConfiguration(url), backgroundLogger: logger)
        running = Task { await client.run() }
        PilotRoutes(table: try await PostgresPilotTable(client: client, schema: options.schema, logger: logger))
            .add(to: router)
    }
    let app = Application(
        router: router,
        configuration: .init(address: .hostname(options.host, port: options.port)),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? options.port
            print("listening on http://\(options.host):\(port)")
            fflush(nil)  // all streams: the driver reads the line from a pipe
        },
        logger: logger)
    try await app.runService()
}

do {
    try await runServer(try ServerOptions(arguments: Array(CommandLine.arguments.dropFirst())))
} catch {
    FileHandle.standardError.write(Data("pilots-baseline-server: \(error)\n".utf8))
    exit(1)
}
