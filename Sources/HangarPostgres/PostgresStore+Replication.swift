import Hangar
import PostgresNIO

// What the primary's replication settings promise across a failover (the `Engines` article's table), as
// `hangar db check --url` reports them.

extension PostgresStore {
    /// One line per fact: `replication: synchronous_standby_names = '…', synchronous_commit = …`, one
    /// `replication: standby NAME: STATE, SYNC_STATE` per standby streaming from the primary, and the promise they
    /// give. Read on the primary (``PostgresStoreConfiguration/client``).
    public func replicationReport() async throws -> [String] {
        let (settings, standbys) = try await engine.withTransaction(.read) { transaction in
            let settings = try await transaction.query(Self.replicationSettings).first.map { row in
                try transaction.decode(row, statement: Self.replicationSettings) {
                    try $0.decode((String, String).self)
                }
            }
            var standbys: [(String, String, String)] = []
            for row in try await transaction.query(Self.replicationStandbys) {
                standbys.append(
                    try transaction.decode(row, statement: Self.replicationStandbys) {
                        try $0.decode((String, String, String).self)
                    })
            }
            return (settings, standbys)
        }
        let (names, commit) = settings ?? ("", "")
        var lines = ["replication: synchronous_standby_names = '\(names)', synchronous_commit = \(commit)"]
        for (name, state, sync) in standbys { lines.append("replication: standby \(name): \(state), \(sync)") }
        let synchronous = standbys.contains { $0.2 == "sync" || $0.2 == "quorum" }
        let promise: String
        if standbys.isEmpty {
            promise = "no standby streams from this server: a failover has nothing to promote"
        } else if names.isEmpty || ["off", "local"].contains(commit) || !synchronous {
            promise = "asynchronous: a failover can lose the last acknowledged writes"
        } else if commit == "remote_apply" {
            promise = "synchronous (remote_apply): promoting a synchronous standby loses no acknowledged write"
        } else {
            promise = "synchronous (\(commit)): promoting a synchronous standby loses no acknowledged write"
        }
        lines.append("replication: \(promise)")
        return lines
    }

    static let replicationSettings =
        "SELECT current_setting('synchronous_standby_names'), current_setting('synchronous_commit')"
    static let replicationStandbys = """
        SELECT COALESCE(application_name, ''), COALESCE(state, ''), COALESCE(sync_state, '')
        FROM pg_stat_replication ORDER BY application_name
        """
}
