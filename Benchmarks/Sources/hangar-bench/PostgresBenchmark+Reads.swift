import Dispatch
import Foundation
import Hangar
import HangarPostgres
import PostgresNIO
import PropertyList

extension PostgresBench {
    // MARK: Reads

    func loadContenders() throws -> [StoreContender] {
        let store = filledStore
        let table = filledRaw
        let lookups = data.lookups
        let collection = Pilot.collection
        let client = raw.client
        let logger = raw.logger
        /// All loads in one transaction, as the store's `read` runs them.
        func rawLoads(_ body: @escaping @Sendable ([UInt8], String) throws -> Int) -> () throws -> Any {
            {
                try waitForCount {
                    try await client.withTransaction(logger: logger) { connection in
                        var total = 0
                        for key in lookups {
                            total += try body(
                                try await table.body(key: key, collection: collection, on: connection, logger: logger),
                                key)
                        }
                        return total
                    }
                }
            }
        }
        func storeLoads(_ body: @escaping @Sendable (PostgresReadTransaction, String) async throws -> Int) -> () throws
            -> Any
        {
            {
                try waitForCount {
                    try await store.read { transaction in
                        var total = 0
                        for key in lookups { total += try await body(transaction, key) }
                        return total
                    }
                }
            }
        }
        let bytes = "postgres-nio SELECT body, bytes"
        return [
            StoreContender(
                contender: Contender(
                    name: "Hangar document(in:key:) bytes", isOurs: true,
                    run: storeLoads { transaction, key in
                        guard let stored = try await transaction.document(in: collection, key: key) else {
                            throw PostgresBenchError("no document \(key)")
                        }
                        return stored.body.count
                    }),
                baseline: bytes, bareBaseline: bytes),
            StoreContender(contender: Contender(name: bytes, isOurs: false, run: rawLoads { body, _ in body.count })),
            StoreContender(
                contender: Contender(
                    name: "Hangar document(...).envelope()", isOurs: true,
                    run: storeLoads { transaction, key in
                        guard let stored = try await transaction.document(in: collection, key: key) else {
                            throw PostgresBenchError("no document \(key)")
                        }
                        return try stored.envelope().dictionaryValue?.count ?? 0
                    }),
                baseline: "postgres-nio + PropertyList(binary:)", bareBaseline: bytes),
            StoreContender(
                contender: Contender(
                    name: "postgres-nio + PropertyList(binary:)", isOurs: false,
                    run: rawLoads { body, _ in try PropertyList(binary: body).dictionaryValue?.count ?? 0 })),
            StoreContender(
                contender: Contender(
                    name: "Hangar load(Pilot.self)", isOurs: true,
                    run: storeLoads { transaction, key in
                        guard let loaded = try await transaction.load(Pilot.self, key: key) else {
                            throw PostgresBenchError("no document \(key)")
                        }
                        return loaded.value.airplanes.count
                    }),
                baseline: "postgres-nio + decode + open + model", bareBaseline: bytes),
            StoreContender(
                contender: Contender(
                    name: "postgres-nio + decode + open + model", isOurs: false,
                    run: rawLoads { body, key in
                        let opened = try Pilot.format.open(try PropertyList(binary: body), name: key, observer: nil)
                        return try Pilot(propertyList: .dictionary(opened.content)).airplanes.count
                    })),
        ]
    }

    func indexQueryContenders() throws -> [StoreContender] {
        let store = filledStore
        let table = filledRaw
        let values = queryValues
        let collection = Pilot.collection
        let client = raw.client
        let logger = raw.logger
        return [
            StoreContender(
                contender: Contender(
                    name: "Hangar keys(in:index:equalTo:)", isOurs: true,
                    run: {
                        try waitForCount {
                            try await store.read { transaction in
                                var total = 0
                                for value in values {
                                    total += try await transaction.keys(
                                        in: collection, index: registrationIndex, equalTo: .string(value)
                                    ).count
                                }
                                return total
                            }
                        }
                    }),
                baseline: "postgres-nio SELECT key FROM index_entries", bareBaseline: nil),
            StoreContender(
                contender: Contender(
                    name: "postgres-nio SELECT key FROM index_entries", isOurs: false,
                    run: {
                        try waitForCount {
                            try await client.withTransaction(logger: logger) { connection in
                                var total = 0
                                for value in values {
                                    total += try await table.keys(
                                        index: registrationIndex, value: value, collection: collection,
                                        on: connection, logger: logger
                                    ).count
                                }
                                return total
                            }
                        }
                    })),
        ]
    }

    // MARK: Concurrent clients

    /// `clients` tasks at once, each with its own share of the round's operations: saves of distinct keys, one
    /// transaction each (fresh tables each round); or, `mixed`, one save (an update of a stored document, its own
    /// keys) then three point loads (random keys, each its own read transaction) at a time.
    func throughputContenders(clients: Int, mixed: Bool) throws -> [StoreContender] {
        let keys = data.keys
        let envelopes = data.envelopes
        let lookups = data.lookups
        let collection = Pilot.collection
        let saves = plan.throughputSaves
        let perClient = saves / clients
        let client = raw.client
        let logger = raw.logger
        var prepareStore: (() throws -> Void)?
        var prepareRaw: (() throws -> Void)?
        let (store, table) =
            mixed
            ? try mixedTables() : try (freshStore("throughput_\(clients)").0, freshRaw("throughput_raw_\(clients)").0)
        if !mixed {
            prepareStore = { try self.server.execute(truncateStoreStatements(store.postgresConfiguration.schema)) }
            prepareRaw = { try self.server.execute(table.truncate) }
        }
        let loadsPerSave = mixed ? 3 : 0
        /// Runs `operation(client, index)` for each client's share, the clients at once.
        func concurrently(_ operation: @escaping @Sendable (Int, Int) async throws -> Void) -> () throws -> Any {
            {
                try waitForCount {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for clientIndex in 0..<clients {
                            group.addTask {
                                for step in 0..<perClient { try await operation(clientIndex, step) }
                            }
                        }
                        try await group.waitForAll()
                    }
                    return saves * (1 + loadsPerSave)
                }
            }
        }
        let suffix = mixed ? "1 save + 3 loads" : "saves"
        let rawName = "postgres-nio \(suffix), \(clients) client\(clients == 1 ? "" : "s")"
        return [
            StoreContender(
                contender: Contender(
                    name: "Hangar \(suffix), \(clients) client\(clients == 1 ? "" : "s")", isOurs: true,
                    run: concurrently { clientIndex, step in
                        let index = clientIndex * perClient + step
                        // A save on its own: the store's single write (one statement), as the server's PUT.
                        try await store.save(envelope: envelopes[index], key: keys[index], in: collection)
                        for load in 0..<loadsPerSave {
                            let key = lookups[(index * loadsPerSave + load) % lookups.count]
                            let count = try await store.load(Pilot.self, key: key)?.value.airplanes.count
                            guard let count, count > 0 else { throw PostgresBenchError("no airplanes in \(key)") }
                        }
                    }, prepare: prepareStore),
                baseline: rawName, bareBaseline: nil),
            StoreContender(
                contender: Contender(
                    name: rawName, isOurs: false,
                    run: concurrently { clientIndex, step in
                        let index = clientIndex * perClient + step
                        try await client.withTransaction(logger: logger) { connection in
                            _ = try await table.save(
                                try envelopes[index].encoded(as: .binary), key: keys[index], collection: collection,
                                on: connection, logger: logger)
                        }
                        for load in 0..<loadsPerSave {
                            let key = lookups[(index * loadsPerSave + load) % lookups.count]
                            let count = try await client.withTransaction(logger: logger) { connection in
                                let body = try await table.body(
                                    key: key, collection: collection, on: connection, logger: logger)
                                let opened = try Pilot.format.open(
                                    try PropertyList(binary: body), name: key, observer: nil)
                                return try Pilot(propertyList: .dictionary(opened.content)).airplanes.count
                            }
                            guard count > 0 else { throw PostgresBenchError("no airplanes in \(key)") }
                        }
                    }, prepare: prepareRaw)),
        ]
    }
}
