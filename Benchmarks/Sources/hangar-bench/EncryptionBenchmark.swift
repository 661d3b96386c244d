import Foundation
import Hangar
import HangarEncryption
import HangarSQLite
import PropertyList

// The encryption rows: the same pilot documents (about 1.3 KB of bplist each) saved and loaded by a plain store and
// by one sealing every body with AES-256-GCM (HangarEncryption), in the same run, taking turns within each round.
// The ratio is encrypted time / plain time (the target is at most 1.3).

/// Runs the encryption rows unless `--filter` leaves them out.
func runEncryptionSection(options: Options) throws {
    guard options.includes(operationNamed: "encryption") else { return }
    let scratch = try ScratchFolder("encryption")
    defer { scratch.remove() }
    let directory = scratch.path
    let plan =
        options.quick
        ? StorePlan(
            name: "encryption-1k", documents: 1_000, singleSaves: 50, loads: 1_000, warmUp: 1, iterations: 3,
            singleSaveIterations: 3)
        : StorePlan(
            name: "encryption-5k", documents: 5_000, singleSaves: 200, loads: 5_000, warmUp: 1, iterations: 9,
            singleSaveIterations: 5)
    let data = try StoreData(plan: plan, directory: directory)
    let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    var sealed = storeConfiguration(synchronous: .normal)
    sealed.encryption = try AESGCMEncryption(key: key)
    let configurations = [("plain", storeConfiguration(synchronous: .normal)), ("encrypted", sealed)]
    print("\n## encryption: plain vs AES-256-GCM sealed bodies (SQLite, synchronous NORMAL)")
    for note in data.notes { print("  \(note)") }

    let saves = configurations.map { name, configuration in
        bulkSaveContender(name, configuration, data: data)
    }
    report("save \(plan.documents) pilots in one transaction", saves, plan: plan, count: plan.documents)
    let singles = configurations.map { name, configuration in
        singleSaveContender(name, configuration, data: data)
    }
    report(
        "save \(plan.singleSaves) pilots, one transaction each", singles, plan: plan, count: plan.singleSaves,
        iterations: plan.singleSaveIterations)
    var loads: [Contender] = []
    for (name, configuration) in configurations {
        let path = directory + "/loads-\(name).sqlite"
        let store = try SQLiteStore(configuration: configuration.at(path))
        try store.write { transaction in
            for (index, pilot) in data.pilots.enumerated() { try transaction.save(pilot, key: data.keys[index]) }
        }
        loads.append(
            Contender(name: name, isOurs: true) {
                try store.read { transaction in
                    var loaded = 0
                    for key in data.lookups where try transaction.load(Pilot.self, key: key) != nil { loaded += 1 }
                    return loaded
                }
            })
    }
    report("load \(plan.loads) pilots by key", loads, plan: plan, count: plan.loads)
}

/// Saves every pilot in one transaction into a fresh store file.
private func bulkSaveContender(_ name: String, _ configuration: SQLiteStoreConfiguration, data: StoreData) -> Contender
{
    let slot = Slot<SQLiteStore>()
    let path = data.directory + "/bulk-\(name).sqlite"
    return Contender(
        name: name, isOurs: true,
        run: {
            guard let store = slot.value else { return 0 }
            return try store.write { transaction in
                for (index, pilot) in data.pilots.enumerated() { try transaction.save(pilot, key: data.keys[index]) }
                return data.pilots.count
            }
        },
        prepare: {
            slot.value = nil
            removeDatabase(at: path)
            slot.value = try SQLiteStore(configuration: configuration.at(path))
        })
}

/// Saves the first pilots one transaction each into a fresh store file.
private func singleSaveContender(_ name: String, _ configuration: SQLiteStoreConfiguration, data: StoreData)
    -> Contender
{
    let slot = Slot<SQLiteStore>()
    let path = data.directory + "/single-\(name).sqlite"
    return Contender(
        name: name, isOurs: true,
        run: {
            guard let store = slot.value else { return 0 }
            for index in 0..<data.plan.singleSaves {
                try store.write { try $0.save(data.pilots[index], key: data.keys[index]) }
            }
            return data.plan.singleSaves
        },
        prepare: {
            slot.value = nil
            removeDatabase(at: path)
            slot.value = try SQLiteStore(configuration: configuration.at(path))
        })
}

/// Prints each contender's median per document and encrypted / plain.
private func report(_ title: String, _ contenders: [Contender], plan: StorePlan, count: Int, iterations: Int? = nil) {
    let outcomes = Harness.measure(contenders, warmUp: plan.warmUp, iterations: iterations ?? plan.iterations)
    var medians: [String: Double] = [:]
    print("\n\(title)")
    for (contender, outcome) in zip(contenders, outcomes) {
        switch outcome {
        case .measured(let sample):
            let seconds = sample.median.seconds
            medians[contender.name] = seconds
            print("  \(contender.name): \(fixed(seconds * 1e6 / Double(max(1, count)), 2)) µs per document (median)")
        case .notAvailable(let reason):
            print("  \(contender.name): n/a (\(reason))")
        }
    }
    if let plain = medians["plain"], let encrypted = medians["encrypted"], plain > 0 {
        print("  encrypted / plain: \(fixed(encrypted / plain, 2))×")
    }
    fflush(nil)
}
