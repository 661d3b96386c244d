import Foundation
import Hangar
import PostgresNIO

/// A `postgres://user:password@host:port/database?parameters` URL, read into postgres-nio's configuration.
/// Errors never quote the URL: it may hold a password.
struct PostgresURL {
    let client: PostgresClient.Configuration
    let schema: String?
    let connectTimeout: Duration?

    init(parsing text: String) throws(HangarError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw Self.invalid("it is not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Self.invalid("its scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw Self.invalid("it names no host") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw Self.invalid("its port must be in 1...65535") }
        guard let user = components.user, !user.isEmpty else { throw Self.invalid("it names no user") }
        let password = components.password
        let path = components.path
        var database: String?
        if !path.isEmpty, path != "/" {
            let name = String(path.dropFirst())
            guard path.hasPrefix("/"), !name.contains("/") else {
                throw Self.invalid("its path must be one database name")
            }
            database = name
        }
        var tls = PostgresClient.Configuration.TLS.prefer(.makeClientConfiguration())
        var applicationName: String?
        var schema: String?
        var connectTimeout: Duration?
        for item in components.queryItems ?? [] {
            guard let value = item.value else { throw Self.invalid("its parameter \(item.name) has no value") }
            switch item.name {
            case "sslmode": tls = try Self.tls(sslmode: value)
            case "application_name": applicationName = value
            case "schema": schema = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw Self.invalid("its connect_timeout must be a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            default:
                throw Self.invalid(
                    "its parameter \(item.name) is not one Hangar reads (sslmode, application_name, "
                        + "connect_timeout, schema)")
            }
        }
        var client = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        if let applicationName {
            client.options.additionalStartupParameters.append(("application_name", applicationName))
        }
        self.client = client
        self.schema = schema
        self.connectTimeout = connectTimeout
    }

    /// libpq's `sslmode` values: `require` encrypts without checking the certificate, `verify-ca` checks it
    /// but not the host name, `verify-full` checks both.
    private static func tls(sslmode: String) throws(HangarError) -> PostgresClient.Configuration.TLS {
        switch sslmode {
        case "disable": return .disable
        case "allow", "prefer": return .prefer(.makeClientConfiguration())
        case "require":
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .require(tls)
        case "verify-ca":
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .noHostnameVerification
            return .require(tls)
        case "verify-full": return .require(.makeClientConfiguration())
        default:
            throw invalid("its sslmode must be disable, allow, prefer, require, verify-ca or verify-full")
        }
    }

    private static func invalid(_ reason: String) -> HangarError {
        HangarError(.invalidConfiguration, "The PostgreSQL URL is not acceptable: \(reason)")
    }
}
