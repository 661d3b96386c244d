import Foundation
import Hangar
import PilotModels
import PropertyList
import Synchronization

/// The steps of the tour, on one store of either engine: everything but step 9 is written once, against
/// ``DocumentStore``, and runs unchanged on SQLite and on PostgreSQL. Public API only.
struct Tour<S: DocumentStore> {
    /// The collection of documents the 1.x app wrote (step 4).
    static var archive: String { TourDefaults.archive }

    /// The store every step works on.
    let store: S
    /// Opens a second store on the same database with another app's configuration (step 7).
    let openAnother: @Sendable (StoreConfiguration) async throws -> S
    /// Closes a store this tour opened (a PostgreSQL store's connections; nothing for a SQLite file).
    let close: @Sendable (S) async -> Void
    let migrationsDirectory: String
    /// Where step 6 writes its `.plist` files and step 9 its backup.
    let exportsDirectory: String
    let migrations: MigrationLog

    func run() async throws {
        registerModels()
        try await saveFleet()
        try await loadFleet()
        try await migrateOldDocuments()
        try await historyAndConflicts()
        try await export()
        try await futureVersion()
        try await followChanges()
        try await checkAndBackUp()
        try await syncDevices()
        try await pageThroughAnIndex()
        try await watchAQuery()
        print("\nDone. Run it again: the tour is safe to repeat on the same store.")
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

    func saveFleet() async throws {
        heading(2, "Save pilots with mixed fleets")
        // One transaction: all saved, or none.
        let revisions = try await store.write { transaction in
            var revisions: [Int] = []
            for entry in Fleet.pilots { revisions.append(try await transaction.save(entry.pilot, key: entry.key)) }
            return revisions
        }
        for (entry, revision) in zip(Fleet.pilots, revisions) {
            let tags = entry.pilot.airplanes.map { ClassRegistry.pilots.tag(for: type(of: $0)) ?? "?" }
            print(
                "  \(pad(entry.key, 12)) revision \(pad("\(revision)", 3)) \(pad(entry.pilot.name, 14)) "
                    + "[\(tags.joined(separator: ", "))]")
        }
    }

    // MARK: 3

    func loadFleet() async throws {
        heading(3, "Load them back: every subclass field intact")
        let loaded = try await store.read { transaction in
            var loaded: [Loaded<Pilot>] = []
            for entry in Fleet.pilots {
                if let pilot = try await transaction.load(Pilot.self, key: entry.key) { loaded.append(pilot) }
            }
            return loaded
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

    func migrateOldDocuments() async throws {
        heading(4, "Migrate old documents")
        let path = migrationsDirectory + "/1.0/ada.plist"
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
        print(
            "  To freeze a new version: bump Pilot.format (a migration step for a new major), then "
                + "`HANGAR_FREEZE=1 swift test` writes Migrations/Pilots/M.m/ (the Migration Kit, `import HangarTesting`)"
        )

        // The archive starts empty on every run: an older file never overwrites the newer data of a last run.
        try await store.write { transaction in
            for key in try await transaction.keys(in: Self.archive) {
                try await transaction.delete(key: key, in: Self.archive)
            }
        }
        migrations.removeAll()
        try await store.importFile(path, into: Self.archive, key: "ada-2019")
        guard let old = try await store.read({ try await $0.load(Pilot.self, key: "ada-2019", in: Self.archive) })
        else {
            throw TourError("the imported document is missing")
        }
        print(
            "  Imported as \(Self.archive)/ada-2019 and loaded (stored \(old.storedVersion), migrated: \(old.wasMigrated)):"
        )
        for event in migrations.removeAll() { print("    observer: \(event)") }
        print("  \(describe(old.value))")
        for airplane in old.value.airplanes { print("    \(describe(airplane))") }

        // An archive of documents the 1.x app wrote, upgraded in place in batches.
        try await seedArchive(from: raw)
        let total = try await store.read { try await $0.count(in: Self.archive) }
        print("  Bulk upgrade of \"\(Self.archive)\" (\(total) documents written by 1.x), in batches of 2:")
        let report = try await store.upgrade(Pilot.self, in: Self.archive, batchSize: 2) { progress in
            print("    upgraded \(progress.upgraded)/\(progress.total)")
        }
        let steps = migrations.removeAll().count
        print(
            "  Upgraded \(report.upgraded.count), left newer \(report.newer.count), quarantined "
                + "\(report.quarantined.count); \(steps) migration steps reported")
        let versions = try await store.read { try await $0.documents(in: Self.archive) }
        let summary = Dictionary(grouping: versions, by: { "\($0.version)" }).map { "\($0.value.count) at \($0.key)" }
        print("  \"\(Self.archive)\" now: \(summary.sorted().joined(separator: ", "))")
    }

    /// The 1.1 frozen file, plus a few 1.0 documents made from the 1.0 one by changing only its pilot.
    private func seedArchive(from v1: PropertyList) async throws {
        try await store.importFile(migrationsDirectory + "/1.1/ada.plist", into: Self.archive, key: "ada-2020")
        guard case .dictionary(let template) = v1 else { throw TourError("the 1.0 file is not a dictionary") }
        let others = [("bo-2018", "Bo Sandberg", "SE-PPL-0007"), ("eva-2019", "Eva Holm", "SE-PPL-0113")]
        try await store.write { transaction in
            for (key, name, license) in others {
                var document = template
                document["name"] = .string(name)
                document["licenseNumber"] = .string(license)
                try await transaction.save(envelope: .dictionary(document), key: key, in: Self.archive)
            }
        }
    }

    // MARK: 5

    func historyAndConflicts() async throws {
        heading(5, "Revisions, history and a stale save")
        let key = Fleet.ada.licenseNumber ?? Fleet.ada.name
        guard let start = try await store.read({ try await $0.load(Pilot.self, key: key) }) else {
            throw TourError("\(key) is missing")
        }
        var pilot = start.value
        pilot.homeAirfield = "ESKN"
        let second = try await store.write { try await $0.save(pilot, key: key, expectedRevision: start.revision) }
        print("  Update 1: home airfield ESSB → ESKN, expecting revision \(start.revision): now revision \(second)")
        pilot.airplanes.append(
            PoweredAirplane(
                model: "Extra 300L", registrationNumber: "SE-MXT", airframeHours: 1_250, engineHorsepower: 300,
                engineHours: 430))
        let third = try await store.write { try await $0.save(pilot, key: key, expectedRevision: second) }
        print("  Update 2: adds an Extra 300L, expecting revision \(second): now revision \(third)")
        let history = try await store.read { try await $0.history(in: Pilot.collection, key: key) }
        print("  History of \(Pilot.collection)/\(key) (the last 4 earlier revisions are kept):")
        for entry in history {
            print(
                "    revision \(pad("\(entry.revision)", 3)) format \(entry.version)\(entry.isCurrent ? "  (current)" : "")"
            )
        }
        do {
            try await store.write { try await $0.save(Fleet.ada, key: key, expectedRevision: second) }
            print("  A stale save was accepted: THIS IS A BUG")
        } catch let error as HangarError where error.code == .conflict {
            print("  Saving with the stale revision \(second) is refused:")
            print("    \(error)")
        }
    }

    // MARK: 6

    func export() async throws {
        heading(6, "Export to .plist files")
        let folder = exportsDirectory
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = Fleet.ada.licenseNumber ?? Fleet.ada.name
        let binary = folder + "/" + key + ".plist"
        let xml = folder + "/" + key + ".xml"
        try await store.export(key: key, in: Pilot.collection, to: binary)
        try await store.export(key: key, in: Pilot.collection, to: xml, format: .xml)
        print("  One pilot, binary:  \(TourFiles.display(binary)) (\(fileSize(binary)) bytes)")
        print("  One pilot, XML:     \(TourFiles.display(xml)) (\(fileSize(xml)) bytes)")
        let binaries = try await store.exportCollection(Pilot.collection, to: folder + "/pilots-binary")
        let xmls = try await store.exportCollection(Pilot.collection, to: folder + "/pilots-xml", format: .xml)
        print("  Collection, binary: \(TourFiles.display(folder + "/pilots-binary"))/ (\(binaries.count) files)")
        print("  Collection, XML:    \(TourFiles.display(folder + "/pilots-xml"))/ (\(xmls.count) files)")
        print("  Read them back with `hangar print FILE` or any property-list tool.")
    }

    // MARK: 7

    func futureVersion() async throws {
        heading(7, "A document from a future version is refused and left untouched")
        let key = "SE-PPL-0314"
        // A newer app (format 3.0 splits `name`) shares this store; its own configuration knows 3.0.
        let future: PropertyList = [
            "majorVersion": 3, "minorVersion": 0, "givenName": "Grace", "familyName": "Okafor",
            "licenseNumber": .string(key), "airplanes": [],
        ]
        // It declares the pilots' indexes too: a store without their definitions drops them as it writes.
        var newer = StoreConfiguration()
        newer.collections[Pilot.collection] = CollectionOptions(indexes: Pilot.queryIndexes)
        let newerApp = try await openAnother(newer)
        do {
            try await newerApp.write { try await $0.save(envelope: future, key: key, in: Pilot.collection) }
        } catch {
            await close(newerApp)
            throw error
        }
        await close(newerApp)
        let before = try await store.read { try await $0.document(in: Pilot.collection, key: key) }
        print("  A 3.0 app saved \(Pilot.collection)/\(key); this app reads up to \(Pilot.format.current).")
        do {
            _ = try await store.read { try await $0.load(Pilot.self, key: key) }
            print("  Loading it succeeded: THIS IS A BUG")
        } catch let error as HangarError where error.code == .newerMajor {
            print("  Load refused: \(error)")
        }
        do {
            try await store.write { try await $0.save(Fleet.mei, key: key) }
            print("  Overwriting it succeeded: THIS IS A BUG")
        } catch let error as HangarError where error.code == .newerMajor {
            print("  Save refused: \(error)")
        }
        let report = try await store.upgrade(Pilot.self)
        print("  Bulk upgrade of \"\(Pilot.collection)\" leaves it alone: newer = \(report.newer)")
        let after = try await store.read { try await $0.document(in: Pilot.collection, key: key) }
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

    func fileSize(_ path: String) -> Int {
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
