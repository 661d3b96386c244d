/// What `hangar-load` prints, one JSON line per run, and `hangar-bench`'s server section reads back: one type on
/// both sides of the pipe.
public struct LoadReport: Codable, Sendable {
    /// `get`, `update` or `seed`.
    public var workload: String
    /// How many keep-alive connections the load held.
    public var connections: Int
    /// How many servers the connections were spread over.
    public var servers: Int
    /// The measured window, in seconds (for `seed`, how long it took).
    public var seconds: Double
    /// Operations completed in the window (an update is a GET and a PUT).
    public var operations: Int
    /// `operations` / `seconds`.
    public var perSecond: Double
    /// The median latency of an operation, in microseconds.
    public var p50Micros: Double
    /// The 99th-percentile latency of an operation, in microseconds.
    public var p99Micros: Double
    /// Updates whose `If-Match` lost to another connection's write (412).
    public var conflicts: Int
    /// Seeded documents created (201).
    public var created: Int
    /// Seeded documents that were there already (412 on `If-None-Match: *`).
    public var existing: Int
    /// Failures by kind.
    public var errors: [String: Int]

    /// A report of `workload` over `connections` to `servers` servers for `seconds`, with nothing counted yet.
    public init(workload: String, connections: Int, servers: Int, seconds: Double) {
        self.workload = workload
        self.connections = connections
        self.servers = servers
        self.seconds = seconds
        operations = 0
        perSecond = 0
        p50Micros = 0
        p99Micros = 0
        conflicts = 0
        created = 0
        existing = 0
        errors = [:]
    }

    /// All the failures, of every kind.
    public var errorCount: Int { errors.values.reduce(0, +) }
}
