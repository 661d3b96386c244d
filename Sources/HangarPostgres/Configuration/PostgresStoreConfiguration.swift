import Foundation
public import Hangar
public import Logging
public import PostgresNIO

/// How a store on PostgreSQL is opened: the server and how to connect to it, the schema its tables live in,
/// the pool and the timeouts every connection gets, and the Hangar ``StoreConfiguration`` it carries (registry,
/// collection options, change retention).
///
/// ```swift
/// let configuration = try PostgresStoreConfiguration(url: "postgres://app:secret@db.internal:5432/app")
/// ```
public struct PostgresStoreConfiguration: Sendable {
    /// How postgres-nio connects: host, port, user, password, database and TLS. The pool size, connect timeout
    /// and server settings below are applied to it when the store opens.
    public var client: PostgresClient.Configuration
    /// Further servers that may be the primary (a URL's other hosts, libpq's `host1:port1,host2:port2`): with any,
    /// the store checks ``client``'s server and these (`pg_is_in_recovery()`, about every 250 ms), writes to the one
    /// not in recovery (the newest timeline's, if two are), and when it goes away moves to the promoted one without
    /// a restart. Never to a server in recovery. Empty by default: ``client`` is the primary, always.
    public var failoverHosts: [PostgresClient.Configuration] = []
    /// The server the change feed's one listening connection (`LISTEN`) goes to, when it is not the primary's
    /// direct address: behind PgBouncer in transaction pooling, which cannot carry `LISTEN`, the primary itself.
    /// `nil` by default: the primary in use (the one ``failoverHosts`` found), directly.
    public var listenClient: PostgresClient.Configuration?
    /// Read replicas: streaming standbys of the primary (``client``) that reads go to, spread over those fit
    /// (``maximumReplicaLag``, same timeline as the primary), the primary serving a read when none is. Writes never
    /// go to a replica. Empty by default: everything on the primary. The `Engines` article says what each setting
    /// promises; the user needs `pg_monitor` on the standbys (their WAL receiver's timeline).
    public var replicas: [PostgresClient.Configuration] = []
    /// How far behind the primary a replica may be, by its replay position, and still serve reads; 1 s by default.
    /// One further behind, or unreachable, is out of use within about one more of this, until it catches up.
    public var maximumReplicaLag: Duration = .seconds(1)
    /// How long a read given a commit token (``Hangar/CommitToken``) waits for a replica to replay it before the
    /// primary serves it; 100 ms by default.
    public var replicaWait: Duration = .milliseconds(100)
    /// The schema that holds the store's tables; `hangar` by default. A lowercase SQL identifier (letters,
    /// digits and `_`, not starting with a digit or `pg_`, at most 63 bytes): several stores share a database
    /// under different schemas.
    public var schema: String
    /// The most connections the store opens to the server at once; 10 by default.
    public var poolSize: Int = 10
    /// How long opening one connection may take; 10 s by default.
    public var connectTimeout: Duration = .seconds(10)
    /// How long a transaction waits for a pooled connection (the server unreachable, or every connection busy)
    /// before failing with ``HangarError/connectionLost``; 30 s by default.
    public var acquireTimeout: Duration = .seconds(30)
    /// The server's `statement_timeout` on every connection: a statement running longer is cancelled
    /// (``HangarError/timeout``); 30 s by default.
    public var statementTimeout: Duration = .seconds(30)
    /// The server's `idle_in_transaction_session_timeout` on every connection: a session idle inside a
    /// transaction for longer (a frozen client holding locks) is ended by the server; 60 s by default.
    public var idleInTransactionTimeout: Duration = .seconds(60)
    /// How long the store waits for the answer to any one statement (`BEGIN` and `COMMIT` too) before it closes
    /// the connection; `nil` (the default): ``statementTimeout`` + 5 s, so the server's own timeout normally
    /// answers first. A server or network that stops answering gives ``HangarError/connectionLost`` (nothing
    /// written), or ``HangarError/outcomeUnknown`` during `COMMIT`, once this passed: a call that runs n
    /// statements answers within ``acquireTimeout`` + n × ``answerDeadline``, whatever the connection does.
    public var statementDeadline: Duration?
    /// The deadline in force: ``statementDeadline``, or ``statementTimeout`` + 5 s.
    public var answerDeadline: Duration { statementDeadline ?? statementTimeout + .seconds(5) }
    /// Whether a save or delete goes through `write_document`, the write procedure in one statement (the default),
    /// or statement by statement as the rules resolve it in Swift. Off only for the suites that compare the two
    /// paths (the `Engines` article's table maps each check of the function to its rule).
    package var writesPlansInOneStatement = true
    /// The Hangar configuration: the registry, the collections' options, the change feed's retention. Its
    /// SQLite settings (synchronous, busy timeout, readers) do not apply.
    public var store: StoreConfiguration
    /// Seals every body saved and opens every sealed body read: the carried ``store``'s
    /// `StoreConfiguration.encryption`, here for convenience.
    public var encryption: (any DocumentEncryption)? {
        get { store.encryption }
        set { store.encryption = newValue }
    }

    /// Where the store logs (``Hangar/StoreConfiguration/logger``, in ``store``): a logger that drops every
    /// record by default. postgres-nio's own logging stays off (its records may hold statements' values).
    public var logger: Logger {
        get { store.observability.logger }
        set { store.observability.logger = newValue }
    }

    /// Where the store logs, what it measures with and when a transaction is slow
    /// (``Hangar/StoreConfiguration/observability``, in ``store``).
    public var observability: StoreObservability {
        get { store.observability }
        set { store.observability = newValue }
    }

    /// `user@host:port/database` (or the socket path for the host), never the password: how log records
    /// name the server.
    public var endpointDescription: String {
        let place = client.unixSocketPath ?? "\(client.host ?? "localhost"):\(client.port ?? 5432)"
        return "\(client.username)@\(place)/\(client.database ?? client.username)"
    }

    /// The default schema name.
    public static let defaultSchema = "hangar"

    /// A configuration from a connection URL: `postgres://user:password@host:port/database?sslmode=disable`
    /// (`postgresql://` too; user, password and database percent-encoded). The port defaults to 5432 and the
    /// database to the user's name. Several hosts, libpq's way (`postgres://user@host1:5432,host2:5433/database`),
    /// are the servers that may be the primary (``failoverHosts``: the first is ``client``). Query parameters: `sslmode` (`disable`, `allow`, `prefer` — the default —,
    /// `require`, `verify-ca`, `verify-full`), `application_name`, `connect_timeout` (seconds), `schema`.
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` for a URL that is not of that form (the message never
    ///   repeats the URL, which may hold a password), or an invalid schema name.
    public init(url: String, schema: String? = nil, store: StoreConfiguration = StoreConfiguration())
        throws(HangarError)
    {
        let parsed = try PostgresURL(parsing: url)
        try self.init(client: parsed.client, schema: schema ?? parsed.schema ?? Self.defaultSchema, store: store)
        failoverHosts = parsed.otherHosts
        if let timeout = parsed.connectTimeout { connectTimeout = timeout }
    }

    /// A configuration from the primary's URL, read replicas' URLs (``replicas``) and the URL the change feed
    /// listens on (``listenClient``), each as ``init(url:schema:store:)`` reads it (a replica's and the listen URL's
    /// `schema` and `connect_timeout` parameters are the primary's). A replica's or the listen URL's several hosts
    /// are not read: only their first.
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` for a URL that is not acceptable.
    public init(
        url: String, replicas: [String], listenURL: String? = nil, schema: String? = nil,
        store: StoreConfiguration = StoreConfiguration()
    )
        throws(HangarError)
    {
        try self.init(url: url, schema: schema, store: store)
        var parsed: [PostgresClient.Configuration] = []
        for replica in replicas { parsed.append(try PostgresURL(parsing: replica).client) }
        self.replicas = parsed
        if let listenURL { listenClient = try PostgresURL(parsing: listenURL).client }
    }

    /// A configuration from postgres-nio's own: for what a URL cannot say (a Unix socket, a TLS context).
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` for an invalid schema name.
    public init(
        client: PostgresClient.Configuration, schema: String = PostgresStoreConfiguration.defaultSchema,
        store: StoreConfiguration = StoreConfiguration()
    ) throws(HangarError) {
        try Self.validateSchema(schema)
        self.client = client
        self.schema = schema
        self.store = store
    }

    /// Checks `name` as a schema name: a lowercase SQL identifier that needs no quoting and is not reserved.
    ///
    /// - Throws: ``HangarError/invalidConfiguration``.
    package static func validateSchema(_ name: String) throws(HangarError) {
        let bytes = Array(name.utf8)
        func isStart(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == 95 }
        func isPart(_ byte: UInt8) -> Bool { isStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard let first = bytes.first, isStart(first), bytes.allSatisfy(isPart), bytes.count <= 63,
            !name.hasPrefix("pg_")
        else {
            throw HangarError(
                .invalidConfiguration,
                "The schema name must be 1 to 63 lowercase letters, digits and underscores, start with a letter "
                    + "or underscore, and not start with pg_")
        }
    }

    /// The client configuration the store runs: ``client`` with the pool size, the connect timeout, and the
    /// timeouts sent as startup parameters, so every connection (also one the pool opens again after a loss)
    /// has them from its first statement.
    ///
    /// - Throws: ``HangarError/invalidConfiguration`` for a pool size below 1, a timeout not positive, or an
    ///   invalid schema name.
    @_spi(Engine) public func makeClientConfiguration() throws(HangarError) -> PostgresClient.Configuration {
        try makeClientConfiguration(for: client)
    }

    /// ``makeClientConfiguration()`` for `base` (the primary's, or a replica's).
    func makeClientConfiguration(for base: PostgresClient.Configuration) throws(HangarError)
        -> PostgresClient.Configuration
    {
        try Self.validateSchema(schema)
        guard maximumReplicaLag > .zero, replicaWait >= .zero else {
            throw HangarError(
                .invalidConfiguration, "The maximum replica lag must be positive, the replica wait not negative")
        }
        guard poolSize >= 1 else {
            throw HangarError(.invalidConfiguration, "The pool size must be at least 1, not \(poolSize)")
        }
        for (name, value) in [
            ("connect timeout", connectTimeout), ("acquire timeout", acquireTimeout),
            ("statement timeout", statementTimeout),
            ("idle-in-transaction timeout", idleInTransactionTimeout), ("statement deadline", answerDeadline),
        ] where value <= .zero {
            throw HangarError(.invalidConfiguration, "The \(name) must be positive")
        }
        var configuration = base
        configuration.options.maximumConnections = poolSize
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = connectTimeout
        var parameters = configuration.options.additionalStartupParameters.filter {
            !["statement_timeout", "idle_in_transaction_session_timeout"].contains($0.0)
        }
        parameters.append(("statement_timeout", "\(Self.milliseconds(statementTimeout))"))
        parameters.append(("idle_in_transaction_session_timeout", "\(Self.milliseconds(idleInTransactionTimeout))"))
        configuration.options.additionalStartupParameters = parameters
        return configuration
    }

    /// Whole milliseconds, at least 1 (the server's unit for both timeouts; 0 would turn them off).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        guard !overflow else { return Int64(Int32.max) }
        // The server takes at most Int32.max milliseconds (about 24.8 days).
        return min(Int64(Int32.max), max(1, product + attoseconds / 1_000_000_000_000_000))
    }
}
