// The store benchmark's contenders, one function an operation: Hangar's store against raw SQLite doing the same work.

import Foundation
import Hangar
import HangarSQLite
import PropertyList

/// One transaction of every document: typed and envelope saves against raw SQLite.
func batchSaveContenders(_ data: StoreData) throws -> [StoreContender] {
    let pilots = data.pilots
    let keys = data.keys
    let envelopes = data.envelopes
    let blobs = data.blobs
    let collection = Pilot.collection
    var list: [StoreContender] = []
    let count = data.plan.documents
    let (typedStore, prepareTyped) = data.freshStore("batch-typed", storeConfiguration())
    list.append(
        StoreContender(
            contender: Contender(
                name: "Hangar save(model)", isOurs: true,
                run: {
                    try typedStore.value!.write { transaction in
                        for index in 0..<count { try transaction.save(pilots[index], key: keys[index]) }
                    }
                    return count
                }, prepare: prepareTyped),
            baseline: "SQLite + model->bplist", bareBaseline: "SQLite, blobs ready"))
    let (envelopeStore, prepareEnvelope) = data.freshStore("batch-envelope", storeConfiguration())
    list.append(
        StoreContender(
            contender: Contender(
                name: "Hangar save(envelope:)", isOurs: true,
                run: {
                    try envelopeStore.value!.write { transaction in
                        for index in 0..<count {
                            try transaction.save(envelope: envelopes[index], key: keys[index], in: collection)
                        }
                    }
                    return count
                }, prepare: prepareEnvelope),
            baseline: "SQLite + encode", bareBaseline: "SQLite, blobs ready"))
    let (rawTyped, prepareRawTyped) = data.freshRaw("batch-raw-typed")
    list.append(
        StoreContender(
            contender: Contender(
                name: "SQLite + model->bplist", isOurs: false,
                run: {
                    let (database, insert) = rawTyped.value!
                    try database.execute("BEGIN IMMEDIATE")
                    for index in 0..<count {
                        let content = pilots[index].propertyListRepresentation.dictionaryValue ?? [:]
                        insert.bind(keys[index], at: 1)
                        try insert.run(blob: try Pilot.format.seal(content).encoded(as: .binary), at: 2)
                    }
                    try database.execute("COMMIT")
                    return count
                }, prepare: prepareRawTyped)))
    let (rawEncode, prepareRawEncode) = data.freshRaw("batch-raw-encode")
    list.append(
        StoreContender(
            contender: Contender(
                name: "SQLite + encode", isOurs: false,
                run: {
                    let (database, insert) = rawEncode.value!
                    try database.execute("BEGIN IMMEDIATE")
                    for index in 0..<count {
                        insert.bind(keys[index], at: 1)
                        try insert.run(blob: try envelopes[index].encoded(as: .binary), at: 2)
                    }
                    try database.execute("COMMIT")
                    return count
                }, prepare: prepareRawEncode)))
    let (rawBlobs, prepareRawBlobs) = data.freshRaw("batch-raw-blobs")
    list.append(
        StoreContender(
            contender: Contender(
                name: "SQLite, blobs ready", isOurs: false,
                run: {
                    let (database, insert) = rawBlobs.value!
                    try database.execute("BEGIN IMMEDIATE")
                    for index in 0..<count {
                        insert.bind(keys[index], at: 1)
                        try insert.run(blob: blobs[index], at: 2)
                    }
                    try database.execute("COMMIT")
                    return count
                }, prepare: prepareRawBlobs)))
    return list
}

/// One transaction a document, with `synchronous` FULL and NORMAL.
func singleSaveContenders(_ data: StoreData) throws -> [StoreContender] {
    let keys = data.keys
    let envelopes = data.envelopes
    let blobs = data.blobs
    let collection = Pilot.collection
    var list: [StoreContender] = []
    let count = data.plan.singleSaves
    for synchronous in [SQLiteStoreConfiguration.Synchronous.full, .normal] {
        let mode = synchronous.rawValue
        let (store, prepareStore) = data.freshStore("single-\(mode)", storeConfiguration(synchronous: synchronous))
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar write{save(envelope:)} \(mode)", isOurs: true,
                    run: {
                        let store = store.value!
                        for index in 0..<count {
                            try store.write {
                                try $0.save(envelope: envelopes[index], key: keys[index], in: collection)
                            }
                        }
                        return count
                    }, prepare: prepareStore),
                baseline: "SQLite + encode, 1/txn \(mode)", bareBaseline: "SQLite, blobs ready, 1/txn \(mode)"))
        let (rawEncode, prepareRawEncode) = data.freshRaw("single-raw-encode-\(mode)", synchronous: mode)
        list.append(
            StoreContender(
                contender: Contender(
                    name: "SQLite + encode, 1/txn \(mode)", isOurs: false,
                    run: {
                        let (database, insert) = rawEncode.value!
                        return try rawSavesOneTransactionEach(
                            database, insert, keys: keys, envelopes: envelopes, count: count)
                    }, prepare: prepareRawEncode)))
        let (rawBlobs, prepareRawBlobs) = data.freshRaw("single-raw-blobs-\(mode)", synchronous: mode)
        list.append(
            StoreContender(
                contender: Contender(
                    name: "SQLite, blobs ready, 1/txn \(mode)", isOurs: false,
                    run: {
                        let (database, insert) = rawBlobs.value!
                        for index in 0..<count {
                            try database.execute("BEGIN IMMEDIATE")
                            insert.bind(keys[index], at: 1)
                            try insert.run(blob: blobs[index], at: 2)
                            try database.execute("COMMIT")
                        }
                        return count
                    }, prepare: prepareRawBlobs)))
    }
    return list
}

/// Point loads from a filled store and a filled raw table.
func loadContenders(_ data: StoreData) throws -> [StoreContender] {
    let pilots = data.pilots
    let keys = data.keys
    let blobs = data.blobs
    let collection = Pilot.collection
    var list: [StoreContender] = []
    let lookups = data.lookups
    // One store and one raw table holding the same documents, filled once, checkpointed, then only read.
    let storePath = data.path("load-store")
    removeDatabase(at: storePath)
    let store = try SQLiteStore(configuration: storeConfiguration().at(storePath))
    try store.write { transaction in
        for index in keys.indices { try transaction.save(pilots[index], key: keys[index]) }
    }
    try store.checkpoint()
    let rawPath = data.path("load-raw")
    removeDatabase(at: rawPath)
    let raw = try RawDatabase(path: rawPath, synchronous: "FULL")
    try raw.createTable()
    do {
        let insert = try raw.prepare("INSERT INTO t (key, body) VALUES (?1, ?2)")
        try raw.execute("BEGIN IMMEDIATE")
        for index in keys.indices {
            insert.bind(keys[index], at: 1)
            try insert.run(blob: blobs[index], at: 2)
        }
        try raw.execute("COMMIT")
        try raw.checkpoint()
    }
    let select = try raw.prepare("SELECT body FROM t WHERE key = ?1")
    func rawBody(_ key: String) throws -> [UInt8] {
        select.bind(key, at: 1)
        guard let body = try select.firstBlob() else { throw RawSQLiteError(message: "no row for \(key)") }
        return body
    }
    /// All loads in one read transaction, as the store's `read` runs them.
    func inReadTransaction<T>(_ body: () throws -> T) throws -> T {
        try raw.execute("BEGIN")
        defer { try? raw.execute("COMMIT") }
        return try body()
    }
    // Both sides are checked to hold the same bytes, outside the clock.
    let sample = lookups.prefix(50)
    let storeBodies = try store.read { transaction in
        try sample.map { try transaction.document(in: collection, key: $0)?.body ?? [] }
    }
    let rawBodies = try sample.map(rawBody)
    let sameBytes = storeBodies == rawBodies
    let sameValues =
        try storeBodies.map { try PropertyList(binary: $0) } == rawBodies.map { try PropertyList(binary: $0) }
    data.notes.append(
        "load: the store's bodies for 50 keys vs the raw table's: "
            + "bytes \(sameBytes ? "identical" : "differ (dictionary order)"), values \(sameValues ? "equal" : "DIFFER")"
    )

    list.append(
        StoreContender(
            contender: Contender(name: "Hangar document(in:key:) bytes", isOurs: true) {
                try store.read { transaction in
                    var total = 0
                    for key in lookups { total += try transaction.document(in: collection, key: key)!.body.count }
                    return total
                }
            },
            baseline: "SQLite SELECT body, bytes", bareBaseline: "SQLite SELECT body, bytes"))
    list.append(
        StoreContender(
            contender: Contender(name: "SQLite SELECT body, bytes", isOurs: false) {
                try inReadTransaction {
                    var total = 0
                    for key in lookups { total += try rawBody(key).count }
                    return total
                }
            }))
    list.append(
        StoreContender(
            contender: Contender(name: "Hangar document(...).envelope()", isOurs: true) {
                try store.read { transaction in
                    var total = 0
                    for key in lookups {
                        total += try transaction.document(in: collection, key: key)!.envelope().dictionaryValue!
                            .count
                    }
                    return total
                }
            },
            baseline: "SQLite + PropertyList(binary:)", bareBaseline: "SQLite SELECT body, bytes"))
    list.append(
        StoreContender(
            contender: Contender(name: "SQLite + PropertyList(binary:)", isOurs: false) {
                try inReadTransaction {
                    var total = 0
                    for key in lookups {
                        total += try PropertyList(binary: try rawBody(key)).dictionaryValue!.count
                    }
                    return total
                }
            }))
    list.append(
        StoreContender(
            contender: Contender(name: "Hangar load(Pilot.self)", isOurs: true) {
                try store.read { transaction in
                    var total = 0
                    for key in lookups {
                        total += try transaction.load(Pilot.self, key: key)!.value.airplanes.count
                    }
                    return total
                }
            },
            baseline: "SQLite + decode + open + model", bareBaseline: "SQLite SELECT body, bytes"))
    list.append(
        StoreContender(
            contender: Contender(name: "SQLite + decode + open + model", isOurs: false) {
                try inReadTransaction {
                    var total = 0
                    for key in lookups {
                        let envelope = try PropertyList(binary: try rawBody(key))
                        let opened = try Pilot.format.open(envelope, name: key, observer: nil)
                        total += try Pilot(propertyList: .dictionary(opened.content)).airplanes.count
                    }
                    return total
                }
            }))
    list.append(
        StoreContender(
            contender: Contender(name: "Hangar read{document} per key", isOurs: true) {
                var total = 0
                for key in lookups {
                    total += try store.read { try $0.document(in: collection, key: key)!.body.count }
                }
                return total
            },
            baseline: "SQLite autocommit SELECT, bytes", bareBaseline: "SQLite autocommit SELECT, bytes"))
    list.append(
        StoreContender(
            contender: Contender(name: "SQLite autocommit SELECT, bytes", isOurs: false) {
                var total = 0
                for key in lookups { total += try rawBody(key).count }
                return total
            }))
    return list
}

/// A bulk 1.0 → 2.0 upgrade against the same work done in raw SQLite.
func upgradeContenders(_ data: StoreData) throws -> [StoreContender] {
    let keys = data.keys
    let collection = Pilot.collection
    var list: [StoreContender] = []
    let count = data.plan.documents
    let batch = data.plan.upgradeBatch
    // Templates at 1.0, filled once; each round starts from a copy (outside the clock).
    let storeTemplate = data.path("upgrade-store-template")
    removeDatabase(at: storeTemplate)
    do {
        let store = try SQLiteStore(configuration: storeConfiguration().at(storeTemplate))
        try store.write { transaction in
            for index in keys.indices {
                try transaction.save(envelope: data.oldEnvelopes[index], key: keys[index], in: collection)
            }
        }
        try store.checkpoint()
    }
    let rawTemplate = data.path("upgrade-raw-template")
    removeDatabase(at: rawTemplate)
    do {
        let raw = try RawDatabase(path: rawTemplate, synchronous: "FULL")
        try raw.createTable()
        let insert = try raw.prepare("INSERT INTO t (key, body) VALUES (?1, ?2)")
        try raw.execute("BEGIN IMMEDIATE")
        for index in keys.indices {
            insert.bind(keys[index], at: 1)
            try insert.run(blob: data.oldBlobs[index], at: 2)
        }
        try raw.execute("COMMIT")
        try raw.checkpoint()
    }
    func copy(_ template: String, to path: String) throws {
        removeDatabase(at: path)
        try FileManager.default.copyItem(atPath: template, toPath: path)
    }
    for (label, history) in [(", history keepAll", HistoryPolicy.keepAll), (", history keepNone", .keepNone)] {
        let slot = Slot<SQLiteStore>()
        let path = data.path("upgrade-store\(history == .keepNone ? "-keepnone" : "")")
        list.append(
            StoreContender(
                contender: Contender(
                    name: "Hangar upgrade(batchSize: \(batch))\(label)", isOurs: true,
                    run: {
                        let store = slot.value!
                        let report = try waitFor { try await store.upgrade(Pilot.self, batchSize: batch) }
                        guard report.upgraded.count == count, report.quarantined.isEmpty else {
                            throw RawSQLiteError(
                                message: "upgrade: \(report.upgraded.count) of \(count), "
                                    + "\(report.quarantined.count) quarantined: \(report.quarantined.first.map { "\($0)" } ?? "")"
                            )
                        }
                        return report.upgraded.count
                    },
                    prepare: {
                        slot.value = nil
                        try copy(storeTemplate, to: path)
                        slot.value = try SQLiteStore(configuration: storeConfiguration(history: history).at(path))
                    }),
                baseline: "SQLite read/decode/migrate/encode/UPDATE", bareBaseline: nil))
    }
    let rawSlot = Slot<RawDatabase>()
    let rawPath = data.path("upgrade-raw")
    list.append(
        StoreContender(
            contender: Contender(
                name: "SQLite read/decode/migrate/encode/UPDATE", isOurs: false,
                run: {
                    let database = rawSlot.value!
                    let all = try database.prepare("SELECT key FROM t ORDER BY key")
                    let select = try database.prepare("SELECT body FROM t WHERE key = ?1")
                    let update = try database.prepare("UPDATE t SET body = ?2 WHERE key = ?1")
                    let stale = try all.allTexts()
                    var upgraded = 0
                    var start = 0
                    while start < stale.count {
                        let end = min(start + batch, stale.count)
                        try database.execute("BEGIN IMMEDIATE")
                        for key in stale[start..<end] {
                            select.bind(key, at: 1)
                            guard let body = try select.firstBlob() else { continue }
                            let envelope = try PropertyList(binary: body)
                            guard
                                try DocumentFormat.envelopeVersion(of: envelope).major < Pilot.format.current.major
                            else {
                                continue
                            }
                            var content = envelope.dictionaryValue ?? [:]
                            content[DocumentFormat.majorKey] = nil
                            content[DocumentFormat.minorKey] = nil
                            let upgradedBody = try Pilot.format.seal(try StoreFormat.v1ToV2.transform(content))
                                .encoded(as: .binary)
                            update.bind(key, at: 1)
                            try update.run(blob: upgradedBody, at: 2)
                            upgraded += 1
                        }
                        try database.execute("COMMIT")
                        start = end
                    }
                    guard upgraded == count else {
                        throw RawSQLiteError(message: "upgraded \(upgraded) of \(count)")
                    }
                    return upgraded
                },
                prepare: {
                    rawSlot.value = nil
                    try copy(rawTemplate, to: rawPath)
                    rawSlot.value = try RawDatabase(path: rawPath, synchronous: "FULL")
                })))
    return list
}
