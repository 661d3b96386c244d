import Foundation
import Hangar
import PostgresNIO

/// A `postgres://user:password@host:port/database?parameters` URL, read into postgres-nio's configuration.
/// It may name several hosts, libpq's way (`postgres://user@host1:port1,host2:port2/database`): each gets the same
/// user, password, database and parameters. Errors never quote the URL: it may hold a password.
struct PostgresURL {
    /// The first host's configuration.
    let client: PostgresClient.Configuration
    /// The further hosts' configurations, in the URL's order (empty for a URL of one host).
    let otherHosts: [PostgresClient.Configuration]
    let schema: String?
    let connectTimeout: Duration?

    init(parsing text: String) throws(HangarError) {
        let (hosts, rebuild) = try Self.hostList(of: text)
        guard hosts.count > 1 else {
            try self.init(parsingOneHost: text)
            return
        }
        var others: [PostgresClient.Configuration] = []
        for host in hosts.dropFirst() { others.append(try Self(parsingOneHost: rebuild(host)).client) }
        try self.init(parsingOneHost: rebuild(hosts[0]), otherHosts: others)
    }

    /// The URL's hosts (`host:port` each, as written), and how to write the URL again with one of them alone.
    /// Only the authority (between `://` and the path) is split at commas.
    private static func hostList(of text: String) throws(HangarError) -> ([Substring], (Substring) -> String) {
        guard let separator = text.range(of: "://") else { return ([], { _ in text }) }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex
        let hosts = authority[hostStart...].split(separator: ",", omittingEmptySubsequences: false)
        if hosts.count > 1, hosts.contains(where: \.isEmpty) { throw invalid("its host list has an empty host") }
        let before = text[..<hostStart]
        let after = text[authorityEnd...]
        return (hosts, { host in String(before) + host + after })
    }

    private init(parsingOneHost text: String, otherHosts: [PostgresClient.Configuration] = []) throws(HangarError) {
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
        self.otherHosts = otherHosts
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
