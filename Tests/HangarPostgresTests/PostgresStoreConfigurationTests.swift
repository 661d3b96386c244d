import Hangar
import PostgresNIO
import Testing

@_spi(Engine) @testable import HangarPostgres

/// URL parsing and validation: no server needed.
@Suite struct PostgresStoreConfigurationTests {
    @Test func aFullURLGivesEveryPart() throws {
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://ada:s%40cret@db.example:6543/flights?sslmode=disable&application_name=tour&schema=tour")
        #expect(configuration.client.host == "db.example")
        #expect(configuration.client.port == 6543)
        #expect(configuration.client.username == "ada")
        #expect(configuration.client.password == "s@cret")
        #expect(configuration.client.database == "flights")
        #expect(configuration.schema == "tour")
        #expect(
            configuration.client.options.additionalStartupParameters.contains { $0 == ("application_name", "tour") })
    }

    @Test func defaultsFillWhatTheURLLeavesOut() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgresql://ada@localhost")
        #expect(configuration.client.port == 5432)
        #expect(configuration.client.password == nil)
        #expect(configuration.client.database == nil)
        #expect(configuration.schema == "hangar")
        #expect(configuration.poolSize == 10)
        #expect(configuration.statementTimeout == .seconds(30))
        #expect(configuration.idleInTransactionTimeout == .seconds(60))
    }

    /// libpq's several-host form: each host gets the URL's user, password, database and parameters.
    @Test func aURLOfSeveralHostsNamesTheServersThatMayBeThePrimary() throws {
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://ada:s%40cret@db1:5432,db2:6543,db3/flights?sslmode=disable&application_name=tour")
        #expect(configuration.client.host == "db1")
        #expect(configuration.client.port == 5432)
        #expect(configuration.failoverHosts.map { $0.host } == ["db2", "db3"])
        #expect(configuration.failoverHosts.map { $0.port } == [6543, 5432])
        for host in configuration.failoverHosts {
            #expect(host.username == "ada")
            #expect(host.password == "s@cret")
            #expect(host.database == "flights")
            #expect(host.options.additionalStartupParameters.contains { $0 == ("application_name", "tour") })
        }
        #expect(try PostgresStoreConfiguration(url: "postgres://ada@db1/x").failoverHosts.isEmpty)
    }

    @Test func aListenURLIsTheFeedsOwnServer() throws {
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://ada@bouncer:6432/db", replicas: [], listenURL: "postgres://ada@primary:5432/db")
        #expect(configuration.listenClient?.host == "primary")
        #expect(configuration.listenClient?.port == 5432)
        #expect(try PostgresStoreConfiguration(url: "postgres://ada@db/x", replicas: []).listenClient == nil)
    }

    @Test func theTimeoutsGoToEveryConnectionAsStartupParameters() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://ada@localhost/db?connect_timeout=3")
        configuration.statementTimeout = .milliseconds(1_500)
        configuration.idleInTransactionTimeout = .seconds(2)
        configuration.poolSize = 3
        let client = try configuration.makeClientConfiguration()
        #expect(client.options.maximumConnections == 3)
        #expect(client.options.connectTimeout == .seconds(3))
        let parameters = client.options.additionalStartupParameters
        #expect(parameters.contains { $0 == ("statement_timeout", "1500") })
        #expect(parameters.contains { $0 == ("idle_in_transaction_session_timeout", "2000") })
    }

    @Test(arguments: [
        "not a url", "http://ada@localhost/db", "postgres:///db", "postgres://localhost/db",
        "postgres://ada:secret@localhost:0/db", "postgres://ada:secret@localhost:70000/db",
        "postgres://ada:secret@localhost:port/db", "postgres://ada:secret@localhost/db/extra",
        "postgres://ada:secret@localhost/db?sslmode=sometimes", "postgres://ada:secret@localhost/db?pool=3",
        "postgres://ada:secret@localhost/db?connect_timeout=-1", "postgres://ada:secret@localhost/db?schema=Bad-Name",
        "postgres://ada:secret@localhost/db?sslmode", "postgres://ada:secret@a:1,/db", "postgres://ada:secret@,b:2/db",
        "postgres://ada:secret@a:1,b:0/db", "postgres://ada:secret@a:1,b:x/db",
    ])
    func aBadURLIsATypedErrorThatDoesNotRepeatIt(url: String) {
        do {
            _ = try PostgresStoreConfiguration(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.description.contains("secret"))
        }
    }

    @Test(arguments: ["hangar", "_x", "app_2", String(repeating: "a", count: 63)])
    func aGoodSchemaNameIsAccepted(name: String) throws {
        try PostgresStoreConfiguration.validateSchema(name)
    }

    @Test(arguments: ["", "Hangar", "2x", "a-b", "a b", "pg_x", "\"x\"", String(repeating: "a", count: 64), "é"])
    func aBadSchemaNameIsRefused(name: String) {
        #expect(throws: HangarError.self) { try PostgresStoreConfiguration.validateSchema(name) }
        do {
            try PostgresStoreConfiguration.validateSchema(name)
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test func aPoolOfNoConnectionsIsRefused() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://ada@localhost/db")
        configuration.poolSize = 0
        #expect(throws: HangarError.self) { try configuration.makeClientConfiguration() }
    }
}
