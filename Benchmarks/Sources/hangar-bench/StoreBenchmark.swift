import Foundation
import Hangar
import HangarSQLite
import PropertyList

// The store rows (issue 5, "Speed"): Hangar's `SQLiteStore` beside raw SQLite doing the same inserts and lookups with
// the same binary plist blobs, in the same run, contenders taking turns within each round.

// MARK: - The benchmark's document type

/// One generated pilot per document (~1 KB of bplist with its airplanes and photo), at format 2.0. Format 1.x wrote
/// an airplane's `registrationNumber` as `registration` and `airframeHours` as decimal text, like the Pilots
/// example's history; ``StoreFormat/v1ToV2`` upgrades it.
/// Both read through `init(reader:)` (``DictionaryReadable``), so a typed load reads them straight from the stored
/// bytes; `init(propertyList:)` reads a decoded tree through the same code.
extension Pilot: VersionedDocument, DictionaryReadable {
    static let collection = "pilots"
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1, migrations: [StoreFormat.v1ToV2])

    init(reader: DictionaryReader) throws(HangarError) {
        self.init(
            id: try reader.read("id"), name: try reader.read("name"), email: try reader.read("email"),
            birthDate: try reader.read("birthDate"), licenseIssued: try reader.read("licenseIssued"),
            photo: try reader.read("photo"), isInstructor: try reader.read("isInstructor"),
            isActive: try reader.read("isActive"), rating: try reader.read("rating"),
            totalFlightHours: try reader.read("totalFlightHours"), airplanes: try reader.read("airplanes"))
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("id", id)
        writer.set("name", name)
        writer.set("email", email)
        writer.set("birthDate", birthDate)
        writer.set("licenseIssued", licenseIssued)
        writer.set("photo", photo)
        writer.set("isInstructor", isInstructor)
        writer.set("isActive", isActive)
        writer.set("rating", rating)
        writer.set("totalFlightHours", totalFlightHours)
        writer.set("airplanes", airplanes)
        return writer.propertyList
    }
}

extension Airplane: DictionaryReadable {
    init(reader: DictionaryReader) throws(HangarError) {
        self.init(
            model: try reader.read("model"), registrationNumber: try reader.read("registrationNumber"),
            airframeHours: try reader.read("airframeHours"), engineHorsepower: try reader.read("engineHorsepower"),
            winchLaunches: try reader.read("winchLaunches"), aerotowLaunches: try reader.read("aerotowLaunches"),
            classTag: try reader.read("class"), lastInspection: try reader.read("lastInspection"),
            maxTakeoffWeight: try reader.read("maxTakeoffWeight"))
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("model", model)
        writer.set("registrationNumber", registrationNumber)
        writer.set("airframeHours", airframeHours)
        writer.set("engineHorsepower", engineHorsepower)
        writer.set("winchLaunches", winchLaunches)
        writer.set("aerotowLaunches", aerotowLaunches)
        writer.set("class", classTag)
        writer.set("lastInspection", lastInspection)
        writer.set("maxTakeoffWeight", maxTakeoffWeight)
        return writer.propertyList
    }
}

enum StoreFormat {
    struct MigrationError: Error {}

    /// 1.x → 2.0, per airplane: `registration` → `registrationNumber`, `airframeHours` text → integer.
    static let v1ToV2 = DocumentMigration(from: 1, "registrationNumber, integer airframeHours") { content in
        var content = content
        guard case .array(let airplanes)? = content["airplanes"] else { return content }
        content["airplanes"] = .array(
            try airplanes.map { airplane in
                guard case .dictionary(var fields) = airplane else { throw MigrationError() }
                if let registration = fields.removeValue(forKey: "registration") {
                    fields["registrationNumber"] = registration
                }
                if case .string(let text)? = fields["airframeHours"] {
                    guard let hours = UInt64(text) else { throw MigrationError() }
                    fields["airframeHours"] = .integer(PropertyList.Integer(hours))
                }
                return .dictionary(fields)
            })
        return content
    }

    /// The inverse, for building the old documents a bulk upgrade starts from (setup only).
    static func v1Content(_ content: PropertyList.Dictionary) -> PropertyList.Dictionary {
        var content = content
        guard case .array(let airplanes)? = content["airplanes"] else { return content }
        content["airplanes"] = .array(
            airplanes.map { airplane in
                guard case .dictionary(var fields) = airplane else { return airplane }
                if let number = fields.removeValue(forKey: "registrationNumber") { fields["registration"] = number }
                if case .integer(let hours)? = fields["airframeHours"] {
                    fields["airframeHours"] = .string(
                        hours.int64Value.map(String.init) ?? hours.uint64Value.map(String.init) ?? "0")
                }
                return .dictionary(fields)
            })
        return content
    }
}

// MARK: - Plan and data

enum StoreOperation: String, CaseIterable {
    case batchSave = "store-batch-save"
    case singleSave = "store-single-save"
    case concurrentSave = "store-concurrent-save"
    case load = "store-load"
    case upgrade = "store-upgrade"
}

struct StorePlan {
    var name: String
    /// Documents saved in one transaction, stored for the loads, and upgraded.
    var documents: Int
    /// Saves of one document per transaction (FULL and NORMAL each).
    var singleSaves: Int
    /// Point loads of random keys.
    var loads: Int
    var upgradeBatch = 200
    var warmUp: Int
    var iterations: Int
    /// The single-save rows wait for the disk on every commit: fewer rounds.
    var singleSaveIterations: Int
}

/// Everything the store rows read, built before any clock starts.
final class StoreData {
    let plan: StorePlan
    let directory: String
    let pilots: [Pilot]
    let keys: [String]
    /// The envelopes at 2.0, as the store builds them from the models.
    let envelopes: [PropertyList]
    /// Their binary plists: the blobs both sides store.
    let blobs: [UInt8s]
    /// The same documents at 1.0, for the upgrade rows.
    let oldEnvelopes: [PropertyList]
    let oldBlobs: [UInt8s]
    /// Keys to load, seeded random order, drawn from `keys`.
    let lookups: [String]
    var notes: [String] = []

    typealias UInt8s = [UInt8]

    init(plan: StorePlan, directory: String) throws {
        self.plan = plan
        self.directory = directory
        let pilots = DocumentGenerator.pilots(count: plan.documents, seed: 0x5354_4F52_4531).pilots
        self.pilots = pilots
        var random = SplitMix64(seed: 0x4B45_5953)
        // Keys in no particular order (like license numbers or UUIDs): not the b-tree's easy append case.
        let keys = pilots.map { pilot in
            "pilot-" + String(random.next() & 0xFFFF_FFFF, radix: 16) + "-" + String(pilot.id)
        }
        self.keys = keys
        let envelopes = pilots.map { Pilot.format.seal($0.propertyListRepresentation.dictionaryValue ?? [:]) }
        self.envelopes = envelopes
        let blobs = try envelopes.map { try $0.encoded(as: .binary) }
        self.blobs = blobs
        let oldEnvelopes = envelopes.map { envelope in
            var content = StoreFormat.v1Content(envelope.dictionaryValue ?? [:])
            content[DocumentFormat.majorKey] = nil
            content[DocumentFormat.minorKey] = nil
            return Pilot.format.seal(content, version: DocumentVersion(major: 1, minor: 0))
        }
        self.oldEnvelopes = oldEnvelopes
        let oldBlobs = try oldEnvelopes.map { try $0.encoded(as: .binary) }
        self.oldBlobs = oldBlobs
        lookups = (0..<plan.loads).map { _ in keys[Int(random.next() % UInt64(plan.documents))] }
        let total = blobs.reduce(0) { $0 + $1.count }
        notes.append(
            "\(plan.documents) pilot documents, seed fixed: \(megabytes(total)) of bplist, "
                + "\(total / max(1, plan.documents)) bytes each on average (\(blobs.map(\.count).min() ?? 0)–"
                + "\(blobs.map(\.count).max() ?? 0)); 1.0 versions for the upgrade: \(megabytes(oldBlobs.reduce(0) { $0 + $1.count }))"
        )
        notes.append("files in \(directory)")
    }

    func path(_ name: String) -> String { directory + "/" + name + ".sqlite" }
}

/// Removes a database file and its WAL and shared-memory files.
func removeDatabase(at path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// The store's configuration for a row: the default (FULL, history kept) unless changed; its path is set where
/// the store is opened (``SQLiteStoreConfiguration/at(_:)``).
func storeConfiguration(
    synchronous: SQLiteStoreConfiguration.Synchronous = .full, history: HistoryPolicy = .keepAll
) -> SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration(path: "")
    configuration.synchronous = synchronous
    configuration.store.collections[Pilot.collection] = CollectionOptions(history: history)
    return configuration
}

extension SQLiteStoreConfiguration {
    /// This configuration for the store at `path`.
    func at(_ path: String) -> SQLiteStoreConfiguration {
        var configuration = self
        configuration.path = path
        return configuration
    }
}

/// A store or raw database opened fresh before each round (by `prepare`, outside the clock).
final class Slot<Value> {
    var value: Value?
}

/// A contender of a store row, and which raw contender is its fair baseline.
struct StoreContender {
    var contender: Contender
    /// The name of the raw contender doing the same SQLite work plus the same codec work (the target's baseline).
    var baseline: String?
    /// The name of the raw contender doing only the SQLite part (blobs ready), for the second ratio.
    var bareBaseline: String?
}

// MARK: - Contenders

func storeContenders(for operation: StoreOperation, data: StoreData) throws -> [StoreContender] {
    switch operation {
    case .batchSave: try batchSaveContenders(data)
    case .singleSave: try singleSaveContenders(data)
    case .concurrentSave: try concurrentSaveContenders(data)
    case .load: try loadContenders(data)
    case .upgrade: try upgradeContenders(data)
    }
}

extension StoreData {
    /// A fresh, empty store at `name` before each round.
    func freshStore(_ name: String, _ configuration: SQLiteStoreConfiguration) -> (Slot<SQLiteStore>, () throws -> Void)
    {
        let slot = Slot<SQLiteStore>()
        let path = self.path(name)
        return (
            slot,
            {
                slot.value = nil
                removeDatabase(at: path)
                slot.value = try SQLiteStore(configuration: configuration.at(path))
            }
        )
    }
    /// A fresh, empty raw table at `name` before each round.
    func freshRaw(_ name: String, synchronous: String = "FULL") -> (
        Slot<(RawDatabase, RawStatement)>, () throws -> Void
    ) {
        let slot = Slot<(RawDatabase, RawStatement)>()
        let path = self.path(name)
        return (
            slot,
            {
                slot.value = nil
                removeDatabase(at: path)
                let database = try RawDatabase(path: path, synchronous: synchronous)
                try database.createTable()
                slot.value = (database, try database.prepare("INSERT INTO t (key, body) VALUES (?1, ?2)"))
            }
        )
    }
}

/// Checks, outside any clock, that a typed save, an envelope save and a raw insert store the same documents, and
/// that both upgrades end with the 2.0 documents.
func checkStoreContenders(_ data: StoreData) throws {
    let count = min(200, data.plan.documents)
    let path = data.path("check")
    removeDatabase(at: path)
    defer { removeDatabase(at: path) }
    let store = try SQLiteStore(configuration: storeConfiguration().at(path))
    try store.write { transaction in
        for index in 0..<count { try transaction.save(data.pilots[index], key: data.keys[index]) }
    }
    let (bodies, loaded) = try store.read { transaction in
        (
            try data.keys.prefix(count).map { try transaction.document(in: Pilot.collection, key: $0)!.body },
            try data.keys.prefix(count).map { try transaction.load(Pilot.self, key: $0)!.value }
        )
    }
    let sameBytes = bodies == Array(data.blobs.prefix(count))
    let sameValues = try bodies.map { try PropertyList(binary: $0) } == Array(data.envelopes.prefix(count))
    let sameModels = loaded == Array(data.pilots.prefix(count))
    data.notes.append(
        "check (\(count) documents): a typed save stores the raw rows' blobs: bytes "
            + "\(sameBytes ? "identical" : "differ"), values \(sameValues ? "equal" : "DIFFER"); "
            + "load(Pilot.self) gives the models back: \(sameModels ? "equal" : "DIFFER")")
    // An old document migrates to the same 2.0 value through the store (in memory) and through the raw path.
    let old = data.oldEnvelopes[0]
    let opened = try Pilot.format.open(old, name: "check", observer: nil)
    let viaFormat = try Pilot(propertyList: .dictionary(opened.content))
    var content = old.dictionaryValue ?? [:]
    content[DocumentFormat.majorKey] = nil
    content[DocumentFormat.minorKey] = nil
    let viaStep = Pilot.format.seal(try StoreFormat.v1ToV2.transform(content))
    data.notes.append(
        "check: a 1.0 document migrates to the 2.0 one (model: \(viaFormat == data.pilots[0] ? "equal" : "DIFFERS"), "
            + "raw step: \(viaStep == data.envelopes[0] ? "equal" : "DIFFERS"))")
}

// MARK: - Report

func reportStore(
    _ operation: StoreOperation, title: String, contenders: [StoreContender], outcomes: [Outcome], count: Int
) {
    reportStore(tag: operation.rawValue, title: title, contenders: contenders, outcomes: outcomes, count: count)
}

/// The table of a row group (store rows and PostgreSQL rows): times, per document, allocations, the two ratios.
func reportStore(tag: String, title: String, contenders: [StoreContender], outcomes: [Outcome], count: Int) {
    var notes: [String] = []
    var table = Table(
        header: [
            "contender", "median ms", "min ms", "us/doc med", "us/doc best", "allocs/doc", "store/raw med",
            "store/raw best", "vs bare SQL med",
        ],
        leftAligned: 1
    )
    var samples: [String: Sample] = [:]
    for (entry, outcome) in zip(contenders, outcomes) {
        if case .measured(let sample) = outcome { samples[entry.contender.name] = sample }
    }
    let perDoc = Double(max(1, count))
    for (entry, outcome) in zip(contenders, outcomes) {
        let name = entry.contender.name
        switch outcome {
        case .notAvailable(let reason):
            table.rows.append([name, "-", "-", "-", "-", "-", "", "", ""])
            notes.append("\(name): failed: \(reason)")
        case .measured(let sample):
            let median = sample.median.seconds
            let best = sample.minimum.seconds
            func ratio(_ baseline: String?, _ pick: (Sample) -> Double, _ ours: Double) -> String {
                guard let baseline else { return "" }
                guard let base = samples[baseline] else { return "n/a" }
                return fixed(ours / pick(base), 2) + "x"
            }
            table.rows.append([
                name, fixed(median * 1e3, 2), fixed(best * 1e3, 2),
                fixed(median * 1e6 / perDoc, 1), fixed(best * 1e6 / perDoc, 1),
                sample.allocations.map { fixed(Double($0) / perDoc, 1) } ?? "-",
                ratio(entry.baseline, { $0.median.seconds }, median),
                ratio(entry.baseline, { $0.minimum.seconds }, best),
                ratio(entry.bareBaseline, { $0.median.seconds }, median),
            ])
        }
    }
    print("\n== \(title) [\(tag)] ==")
    print(table.render())
    for note in notes { print("  note: \(note)") }
}

// MARK: - Running

func runStoreBenchmarks(_ plan: StorePlan, operations: [StoreOperation], options: Options) throws {
    let start = ContinuousClock.now
    let scratch = try ScratchFolder("store")
    defer { scratch.remove() }
    let directory = scratch.path

    let data = try StoreData(plan: plan, directory: directory)
    try checkStoreContenders(data)
    var lists: [StoreOperation: [StoreContender]] = [:]
    for operation in operations {
        lists[operation] = try storeContenders(for: operation, data: data).filter { options.includes($0.contender) }
    }
    let warmUp = options.quick ? 1 : plan.warmUp
    print(
        "\nstore setup (\(plan.name)): \(elapsed(since: start)); the store at its defaults (WAL, synchronous FULL, "
            + "history keepAll) unless a row says otherwise; raw SQLite: a (key TEXT PRIMARY KEY, body BLOB) STRICT table, "
            + "same pragmas, prepared statements")
    for note in data.notes { print("  \(note)") }
    print(
        "  us/doc = time / documents (or loads); store/raw = store time / its raw baseline's time "
            + "(same SQLite work plus the same codec work; target <= 2x); vs bare SQL = store time / raw SQLite with "
            + "the blobs ready")
    fflush(nil)

    for operation in operations {
        guard let list = lists[operation], !list.isEmpty else { continue }
        let (title, count, iterations): (String, Int, Int) =
            switch operation {
            case .batchSave:
                (
                    "\(plan.documents) saves in one transaction (a fresh file each round)", plan.documents,
                    plan.iterations
                )
            case .singleSave:
                (
                    "\(plan.singleSaves) saves, one transaction each (a fresh file each round)", plan.singleSaves,
                    plan.singleSaveIterations
                )
            case .concurrentSave:
                (
                    "\(plan.singleSaves) saves by \(concurrentWriters) writers at once, one transaction each (a fresh "
                        + "file each round)", plan.singleSaves, plan.singleSaveIterations
                )
            case .load:
                (
                    "\(plan.loads) point loads of random keys from \(plan.documents) documents", plan.loads,
                    plan.iterations
                )
            case .upgrade:
                (
                    "bulk upgrade of \(plan.documents) documents 1.0 -> 2.0, batches of \(plan.upgradeBatch) "
                        + "(a fresh copy each round)", plan.documents, max(3, plan.iterations / 2)
                )
            }
        let outcomes = Harness.measure(
            list.map(\.contender), warmUp: warmUp, iterations: options.iterations ?? iterations)
        reportStore(operation, title: title, contenders: list, outcomes: outcomes, count: count)
        fflush(nil)
    }
    print("\nstore rows: \(elapsed(since: start))")
}
