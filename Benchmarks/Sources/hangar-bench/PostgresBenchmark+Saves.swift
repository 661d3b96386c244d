import Dispatch
import Foundation
import Hangar
import HangarPostgres
import PostgresNIO
import PropertyList

extension PostgresBench {
    // MARK: Saves

    func batchSaveContenders() throws -> [StoreContender] {
        let pilots = data.pilots
        let keys = data.keys
        let envelopes = data.envelopes
        let blobs = data.blobs
        let collection = Pilot.collection
        let count = plan.documents
        let client = raw.client
        let logger = raw.logger
        var list: [StoreContender] = []
        let (typed, prepareTyped) = try freshStore("batch_typed")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar save(model)", isOurs: true,
                    run: {
                        try waitForCount {
                            try await typed.write { transaction in
                                for index in 0..<count { try await transaction.save(pilots[index], key: keys[index]) }
                            }
                            return count
                        }
                    }, prepare: prepareTyped),
                baseline: "postgres-nio + model->bplist", bareBaseline: "postgres-nio, blobs ready"))
        let (envelope, prepareEnvelope) = try freshStore("batch_envelope")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar save(envelope:)", isOurs: true,
                    run: {
                        try waitForCount {
                            try await envelope.write { transaction in
                                for index in 0..<count {
                                    try await transaction.save(
                                        envelope: envelopes[index], key: keys[index], in: collection)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareEnvelope),
                baseline: "postgres-nio + encode", bareBaseline: "postgres-nio, blobs ready"))
        let (rawTyped, prepareRawTyped) = try freshRaw("batch_raw_typed")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "postgres-nio + model->bplist", isOurs: false,
                    run: {
                        try waitForCount {
                            try await client.withTransaction(logger: logger) { connection in
                                for index in 0..<count {
                                    let content = pilots[index].propertyListRepresentation.dictionaryValue ?? [:]
                                    let blob = try Pilot.format.seal(content).encoded(as: .binary)
                                    _ = try await rawTyped.save(
                                        blob, key: keys[index], collection: collection, on: connection, logger: logger)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareRawTyped)))
        let (rawEncode, prepareRawEncode) = try freshRaw("batch_raw_encode")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "postgres-nio + encode", isOurs: false,
                    run: {
                        try waitForCount {
                            try await client.withTransaction(logger: logger) { connection in
                                for index in 0..<count {
                                    _ = try await rawEncode.save(
                                        try envelopes[index].encoded(as: .binary), key: keys[index],
                                        collection: collection, on: connection, logger: logger)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareRawEncode)))
        let (rawBlobs, prepareRawBlobs) = try freshRaw("batch_raw_blobs")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "postgres-nio, blobs ready", isOurs: false,
                    run: {
                        try waitForCount {
                            try await client.withTransaction(logger: logger) { connection in
                                for index in 0..<count {
                                    _ = try await rawBlobs.save(
                                        blobs[index], key: keys[index], collection: collection, on: connection,
                                        logger: logger)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareRawBlobs)))
        return list
    }

    func singleSaveContenders() throws -> [StoreContender] {
        let keys = data.keys
        let envelopes = data.envelopes
        let blobs = data.blobs
        let collection = Pilot.collection
        let count = plan.singleSaves
        let client = raw.client
        let logger = raw.logger
        var list: [StoreContender] = []
        let (store, prepareStore) = try freshStore("single")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar write{save(envelope:)}", isOurs: true,
                    run: {
                        try waitForCount {
                            for index in 0..<count {
                                try await store.write { transaction in
                                    try await transaction.save(
                                        envelope: envelopes[index], key: keys[index], in: collection)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareStore),
                baseline: "postgres-nio + encode, 1/txn", bareBaseline: "postgres-nio, blobs ready, 1/txn"))
        let (rawEncode, prepareRawEncode) = try freshRaw("single_raw_encode")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "postgres-nio + encode, 1/txn", isOurs: false,
                    run: {
                        try waitForCount {
                            for index in 0..<count {
                                try await client.withTransaction(logger: logger) { connection in
                                    _ = try await rawEncode.save(
                                        try envelopes[index].encoded(as: .binary), key: keys[index],
                                        collection: collection, on: connection, logger: logger)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareRawEncode)))
        let (rawBlobs, prepareRawBlobs) = try freshRaw("single_raw_blobs")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "postgres-nio, blobs ready, 1/txn", isOurs: false,
                    run: {
                        try waitForCount {
                            for index in 0..<count {
                                try await client.withTransaction(logger: logger) { connection in
                                    _ = try await rawBlobs.save(
                                        blobs[index], key: keys[index], collection: collection, on: connection,
                                        logger: logger)
                                }
                            }
                            return count
                        }
                    }, prepare: prepareRawBlobs)))
        return list
    }
}
