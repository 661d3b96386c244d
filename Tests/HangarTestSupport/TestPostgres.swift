import Foundation

/// Where the PostgreSQL tests find their server: `HANGAR_TEST_POSTGRES_URL`, which `Scripts/with-postgres.sh`
/// exports for a throwaway server it starts (`Scripts/with-postgres.sh swift test`). Without it the PostgreSQL
/// tests are skipped, loudly, unless `HANGAR_REQUIRE_POSTGRES=1` (CI), when they fail instead.
///
/// Environment and naming only: this target does not depend on postgres-nio (targets that only use SQLite use it).
public enum TestPostgres {
    /// The server's URL (`postgres://user:password@127.0.0.1:port/database`), or `nil` when not set.
    public static let url: String? = {
        let value = ProcessInfo.processInfo.environment["HANGAR_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// The primary's direct URL when ``url`` is PgBouncer's (`Scripts/with-postgres.sh --pgbouncer`): where the
    /// change feed's `LISTEN` must go (``HangarPostgres/PostgresStoreConfiguration/listenClient``); `nil` otherwise.
    public static let listenURL: String? = {
        let environment = ProcessInfo.processInfo.environment
        guard let bouncer = environment["HANGAR_TEST_POSTGRES_PGBOUNCER_URL"], !bouncer.isEmpty, bouncer == url,
            let primary = environment["HANGAR_TEST_POSTGRES_PRIMARY_URL"], !primary.isEmpty
        else { return nil }
        return primary
    }()

    /// Whether a missing server fails the PostgreSQL tests rather than skipping them (`HANGAR_REQUIRE_POSTGRES=1`).
    public static let isRequired = ProcessInfo.processInfo.environment["HANGAR_REQUIRE_POSTGRES"] == "1"

    /// The line printed to standard error when the tests are skipped.
    public static let skipWarning =
        "WARNING: HANGAR_TEST_POSTGRES_URL is not set: the PostgreSQL tests are SKIPPED "
        + "(run them with Scripts/with-postgres.sh swift test)"

    /// Whether the PostgreSQL tests run: with a URL, or without one when required (they then fail on
    /// ``requireURL()``). Prints ``skipWarning`` to standard error (once) when they are skipped. For
    /// `@Suite(.enabled(if: TestPostgres.shouldRun))`.
    public static var shouldRun: Bool {
        if url != nil || isRequired { return true }
        warnOnce
        return false
    }

    private static let warnOnce: Void = {
        FileHandle.standardError.write(Data((skipWarning + "\n").utf8))
    }()

    /// The server's URL; throws when it is not set (only reached when ``isRequired``).
    public static func requireURL() throws -> String {
        guard let url else { throw MissingServer() }
        return url
    }

    /// A schema name no other test uses at the same time: `t_`, the label's letters and digits (lowercased,
    /// at most 30), the process id and a random suffix. Tests in parallel each get their own schema.
    public static func uniqueSchemaName(_ label: String) -> String {
        let letters = label.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        let stem = String(String.UnicodeScalarView(letters.prefix(30)))
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "t_\(stem)_\(ProcessInfo.processInfo.processIdentifier)_\(random)"
    }

    /// HANGAR_REQUIRE_POSTGRES=1, but no server URL was given.
    public struct MissingServer: Error, CustomStringConvertible {
        public var description: String {
            "HANGAR_REQUIRE_POSTGRES=1 but HANGAR_TEST_POSTGRES_URL is not set: the PostgreSQL tests cannot run "
                + "(run them with Scripts/with-postgres.sh swift test)"
        }
    }
}
