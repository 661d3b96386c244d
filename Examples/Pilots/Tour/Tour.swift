import Foundation
import Hangar
import PilotModels
import PropertyList
import Synchronization

/// The eight steps of the tour, on one store. Public API only.
struct Tour {
    static let application = "HangarPilots"
    static let archive = "pilots-archive"

    let storePath: String
    let migrationsDirectory: String
    let store: Store
    let migrations: MigrationLog

    init(storePath: String, migrationsDirectory: String, fresh: Bool) throws {
        self.storePath = storePath
        self.migrationsDirectory = migrationsDirectory
        let existed = FileManager.default.fileExists(atPath: storePath)
        let migrations = MigrationLog()
        var configuration = StoreConfiguration()
        configuration.registry = ClassRegistry.pilots
        for collection in [Pilot.collection, Self.archive] {
            configuration.collections[collection] = CollectionOptions(history: .keepLast(4), format: Pilot.format)
        }
        configuration.migrationObserver = { event in migrations.append(event) }
        self.migrations = migrations
        store = try Store(path: storePath, configuration: configuration)
        print("Hangar Pilots tour")
        print("Store: \(TourFiles.display(storePath)) (\(existed ? "existing" : "new")\(fresh ? ", --fresh" : ""))")
    }

    func run() throws {
        registerModels()
        try saveFleet()
        try loadFleet()
        try migrateOldDocuments()
        try historyAndConflicts()
        try export()
        try futureVersion()
        try followChanges()
        print("\nDone. Run it again: the tour is safe to repeat on the same store (or pass --fresh).")
    }

    // MARK: 1

    func registerModels() {
        heading(1, "Register the models and their class tags")
        // Examples/Pilots/Models/PilotRegistry.swift: three register(_:tag:as:) calls.
        let registry = ClassRegistry.pilots
        print("  ClassRegistry.pilots, an allow-list: a tag builds only the type registered for it")
        for type in [Airplane.self, PoweredAirplane.self, Glider.self] {
            print("  \(pad("\(type)", 16)) class tag \"\(registry.tag(for: type) ?? "-")\"")
        }
        print("  Allowed where an Airplane is read: \(registry.tags(for: Airplane.self).joined(separator: ", "))")
        print(
            "  Pilot is a versioned document: collection \"\(Pilot.collection)\", format \(Pilot.format.current), "
                + "reads back to \(Pilot.format.oldestReadableMajor).0")
    }

    // MARK: 2

    func saveFleet() throws {
        heading(2, "Save pilots with mixed fleets")
        // One transaction: all saved, or none.
        let revisions = try store.write { transaction in
            try Fleet.pilots.map { entry in try transaction.save(entry.pilot, key: entry.key) }
        }
        for (entry, revision) in zip(Fleet.pilots, revisions) {
            let tags = entry.pilot.airplanes.map { ClassRegistry.pilots.tag(for: type(of: $0)) ?? "?" }
            print(
                "  \(pad(entry.key, 12)) revision \(pad("\(revision)", 3)) \(pad(entry.pilot.name, 14)) "
                    + "[\(tags.joined(separator: ", "))]")
        }
    }

    // MARK: 3

    func loadFleet() throws {
        heading(3, "Load them back: every subclass field intact")
        let loaded = try store.read { transaction in
            try Fleet.pilots.compactMap { try transaction.load(Pilot.self, key: $0.key) }
        }
        for document in loaded {
            print(
                "  \(describe(document.value)) — \(document.key), revision \(document.revision), \(document.storedVersion)"
            )
            for airplane in document.value.airplanes { print("    \(describe(airplane))") }
        }
        let intact = zip(loaded, Fleet.pilots).allSatisfy { loaded, saved in
            ClassRegistry.pilots.encode(loaded.value) == ClassRegistry.pilots.encode(saved.pilot)
        }
        print("  Equal to what was saved: \(intact ? "yes" : "NO")")
    }

    // MARK: 4

    func migrateOldDocuments() throws {
        heading(4, "Migrate old documents")
        let path = migrationsDirectory + "/pilot-v1.0.plist"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let raw = try PropertyList(binary: bytes)
        let version = try DocumentFormat.envelopeVersion(of: raw)
        print("  Frozen file: \(TourFiles.display(path)) (\(bytes.count) bytes, format \(version))")
        if let motor = raw["airplanes"]?[1] {
            print(
                "  As the \(version) app wrote airplanes[1]: class \(show(motor["class"])), "
                    + "registration \(show(motor["registration"])), airframeHours \(show(motor["airframeHours"]))")
        }
        if let glider = raw["airplanes"]?[2] {
            print("  ... and airplanes[2]: class \(show(glider["class"])), kind \(show(glider["kind"]))")
        }

        // The archive starts empty on every run: an older file never overwrites the newer data of a last run.
        try store.write { transaction in
            for key in try transaction.keys(in: Self.archive) { try transaction.delete(key: key, in: Self.archive) }
        }
        migrations.removeAll()
        try store.importFile(path, into: Self.archive, key: "ada-2019")
        guard let old = try store.read({ try $0.load(Pilot.self, key: "ada-2019", in: Self.archive) }) else {
            throw TourError("the imported document is missing")
        }
        print(
            "  Imported as \(Self.archive)/ada-2019 and loaded (stored \(old.storedVersion), migrated: \(old.wasMigrated)):"
        )
        for event in migrations.removeAll() { print("    observer: \(event)") }
        print("  \(describe(old.value))")
        for airplane in old.value.airplanes { print("    \(describe(airplane))") }

        // An archive of documents the 1.x app wrote, upgraded in place in batches.
        try seedArchive(from: raw)
        let total = try store.read { try $0.count(in: Self.archive) }
        print("  Bulk upgrade of \"\(Self.archive)\" (\(total) documents written by 1.x), in batches of 2:")
        let report = try store.upgrade(Pilot.self, in: Self.archive, batchSize: 2) { progress in
            print("    upgraded \(progress.upgraded)/\(progress.total)")
        }
        let steps = migrations.removeAll().count
        print(
            "  Upgraded \(report.upgraded.count), left newer \(report.newer.count), quarantined "
                + "\(report.quarantined.count); \(steps) migration steps reported")
        let versions = try store.read { transaction in
            try transaction.keys(in: Self.archive).compactMap { try transaction.document(in: Self.archive, key: $0) }
        }
        let summary = Dictionary(grouping: versions, by: { "\($0.version)" }).map { "\($0.value.count) at \($0.key)" }
        print("  \"\(Self.archive)\" now: \(summary.sorted().joined(separator: ", "))")
    }

    /// The 1.1 frozen file, plus a few 1.0 documents made from the 1.0 one by changing only its pilot.
    private func seedArchive(from v1: PropertyList) throws {
        try store.importFile(migrationsDirectory + "/pilot-v1.1.plist", into: Self.archive, key: "ada-2020")
        guard case .dictionary(let template) = v1 else { throw TourError("the 1.0 file is not a dictionary") }
        let others = [("bo-2018", "Bo Sandberg", "SE-PPL-0007"), ("eva-2019", "Eva Holm", "SE-PPL-0113")]
        try store.write { transaction in
            for (key, name, license) in others {
                var document = template
                document["name"] = .string(name)
                document["licenseNumber"] = .string(license)
                try transaction.save(envelope: .dictionary(document), key: key, in: Self.archive)
            }
        }
    }

    // MARK: 5

    func historyAndConflicts() throws {
        heading(5, "Revisions, history and a stale save")
        let key = Fleet.ada.licenseNumber ?? Fleet.ada.name
        guard let start = try store.read({ try $0.load(Pilot.self, key: key) }) else {
            throw TourError("\(key) is missing")
        }
        var pilot = start.value
        pilot.homeAirfield = "ESKN"
        let second = try store.write { try $0.save(pilot, key: key, expectedRevision: start.revision) }
        print("  Update 1: home airfield ESSB → ESKN, expecting revision \(start.revision): now revision \(second)")
        pilot.airplanes.append(
            PoweredAirplane(
                model: "Extra 300L", registrationNumber: "SE-MXT", airframeHours: 1_250, engineHorsepower: 300,
                engineHours: 430))
        let third = try store.write { try $0.save(pilot, key: key, expectedRevision: second) }
        print("  Update 2: adds an Extra 300L, expecting revision \(second): now revision \(third)")
        let history = try store.read { try $0.history(in: Pilot.collection, key: key) }
        print("  History of \(Pilot.collection)/\(key) (the last 4 earlier revisions are kept):")
        for entry in history {
            print(
                "    revision \(pad("\(entry.revision)", 3)) format \(entry.version)\(entry.isCurrent ? "  (current)" : "")"
            )
        }
        do {
            try store.write { try $0.save(Fleet.ada, key: key, expectedRevision: second) }
            print("  A stale save was accepted: THIS IS A BUG")
        } catch let error as HangarError where error.code == .conflict {
            print("  Saving with the stale revision \(second) is refused:")
            print("    \(error)")
        }
    }

    // MARK: 6

    func export() throws {
        heading(6, "Export to .plist files")
        let folder = TourFiles.exportsDirectory(forStoreAt: storePath)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = Fleet.ada.licenseNumber ?? Fleet.ada.name
        let binary = folder + "/" + key + ".plist"
        let xml = folder + "/" + key + ".xml"
        try store.export(key: key, in: Pilot.collection, to: binary)
        try store.export(key: key, in: Pilot.collection, to: xml, format: .xml)
        print("  One pilot, binary:  \(TourFiles.display(binary)) (\(fileSize(binary)) bytes)")
        print("  One pilot, XML:     \(TourFiles.display(xml)) (\(fileSize(xml)) bytes)")
        let binaries = try store.exportCollection(Pilot.collection, to: folder + "/pilots-binary")
        let xmls = try store.exportCollection(Pilot.collection, to: folder + "/pilots-xml", format: .xml)
        print("  Collection, binary: \(TourFiles.display(folder + "/pilots-binary"))/ (\(binaries.count) files)")
        print("  Collection, XML:    \(TourFiles.display(folder + "/pilots-xml"))/ (\(xmls.count) files)")
        print("  Read them back with `hangar print FILE` or any property-list tool.")
    }

    // MARK: 7

    func futureVersion() throws {
        heading(7, "A document from a future version is refused and left untouched")
        let key = "SE-PPL-0314"
        // A newer app (format 3.0 splits `name`) shares this store; its own configuration knows 3.0.
        let future: PropertyList = [
            "majorVersion": 3, "minorVersion": 0, "givenName": "Grace", "familyName": "Okafor",
            "licenseNumber": .string(key), "airplanes": [],
        ]
        do {
            let newerApp = try Store(path: storePath)
            try newerApp.write { try $0.save(envelope: future, key: key, in: Pilot.collection) }
        }
        let before = try store.read { try $0.document(in: Pilot.collection, key: key) }
        print("  A 3.0 app saved \(Pilot.collection)/\(key); this app reads up to \(Pilot.format.current).")
        do {
            _ = try store.read { try $0.load(Pilot.self, key: key) }
            print("  Loading it succeeded: THIS IS A BUG")
        } catch let error as HangarError where error.code == .newerMajor {
            print("  Load refused: \(error)")
        }
        do {
            try store.write { try $0.save(Fleet.mei, key: key) }
            print("  Overwriting it succeeded: THIS IS A BUG")
        } catch let error as HangarError where error.code == .newerMajor {
            print("  Save refused: \(error)")
        }
        let report = try store.upgrade(Pilot.self)
        print("  Bulk upgrade of \"\(Pilot.collection)\" leaves it alone: newer = \(report.newer)")
        let after = try store.read { try $0.document(in: Pilot.collection, key: key) }
        if let after, after == before {
            print(
                "  Stored document unchanged: revision \(after.revision), format \(after.version), \(after.body.count) bytes"
            )
        } else {
            print("  The stored document changed: THIS IS A BUG")
        }
    }

    // MARK: Printing

    func heading(_ number: Int, _ title: String) {
        print("\n== Step \(number). \(title) ==")
    }

    private func describe(_ pilot: Pilot) -> String {
        var parts = [pilot.name]
        if let license = pilot.licenseNumber { parts.append("license \(license)") }
        if let born = pilot.dateOfBirth { parts.append("born \(Self.day(born))") }
        parts.append("home \(pilot.homeAirfield ?? "unknown")")
        return parts.joined(separator: ", ")
    }

    private func describe(_ airplane: Airplane) -> String {
        let tag = ClassRegistry.pilots.tag(for: type(of: airplane)) ?? "?"
        var text = "\(pad(tag, 15)) \(pad(airplane.model, 24)) \(pad(airplane.registrationNumber, 7)) "
        text += "airframe \(airplane.airframeHours) h"
        if let powered = airplane as? PoweredAirplane {
            text += ", \(powered.engineHorsepower) hp, engine \(powered.engineHours) h"
        }
        if let glider = airplane as? Glider {
            text += ", launches: \(glider.aerotowLaunchCount) aerotow, \(glider.winchLaunchCount) winch"
        }
        return text
    }

    private func show(_ value: PropertyList?) -> String {
        switch value {
        case .string(let text)?: "\"\(text)\" (text)"
        case .integer(let number)?: "\(number) (integer)"
        case let other?: other.kindName
        case nil: "absent"
        }
    }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}

/// Migration events as the store's observer reports them, kept for printing.
final class MigrationLog: Sendable {
    private let events = Mutex<[MigrationEvent]>([])

    func append(_ event: MigrationEvent) {
        events.withLock { $0.append(event) }
    }

    /// The events so far, and forgets them.
    @discardableResult
    func removeAll() -> [MigrationEvent] {
        events.withLock { events in
            defer { events = [] }
            return events
        }
    }
}

/// Something the tour expected and did not find.
struct TourError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
