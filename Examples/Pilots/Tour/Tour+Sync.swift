import Hangar
import HangarSQLite
import HangarSync
import PilotModels

/// The key step 10's two devices edit.
let tourSyncedKey = "SE-SYNC-0001"

extension Tour {
    // MARK: 10

    /// Two devices, each an embedded SQLite store, take the pilots from this store (the server), edit one pilot
    /// while offline (one renames it, the other sets its home airfield), and converge: the second device's push
    /// meets a conflict, which the default resolver merges (the sides changed different keys). In process here;
    /// `hangar db sync --db DEVICE --remote URL pilots` does the same with `pilots-server` over HTTP.
    func syncDevices() async throws {
        heading(10, "Two devices edit offline and converge (Hangar Sync)")
        try await store.write { try await $0.save(Pilot(name: "Sam Sync", homeAirfield: "ESSB"), key: tourSyncedKey) }
        let server = SyncServer(store: store)
        var configuration = StoreConfiguration()
        configuration.registry = .pilots
        configuration.collections[Pilot.collection] = CollectionOptions(format: Pilot.format)
        let phone = try SQLiteStore.inMemory(store: configuration)
        let laptop = try SQLiteStore.inMemory(store: configuration)
        let phoneSync = SyncReplica(store: phone, transport: LocalSyncTransport(server: server))
        let laptopSync = SyncReplica(store: laptop, transport: LocalSyncTransport(server: server))
        let first = try await phoneSync.sync(Pilot.collection)
        _ = try await laptopSync.sync(Pilot.collection)
        print("  Both devices took a snapshot of the server: \(first.pulled) pilots each")
        print("  Offline, the phone renames \(tourSyncedKey); the laptop sets its home airfield")
        try await phone.update(Pilot.self, key: tourSyncedKey) { $0.name = "Samantha Sync" }
        try await laptop.update(Pilot.self, key: tourSyncedKey) { $0.homeAirfield = "EGLL" }
        for (name, replica) in [("phone", phoneSync), ("laptop", laptopSync), ("phone", phoneSync)] {
            let report = try await replica.sync(Pilot.collection)
            print(
                "  \(pad(name, 7)) synced: pulled \(report.pulled), pushed \(report.pushed), "
                    + "conflicts \(report.conflicts)")
        }
        let onServer = try await store.load(Pilot.self, key: tourSyncedKey)?.value
        let onPhone = try await phone.load(Pilot.self, key: tourSyncedKey)?.value
        let onLaptop = try await laptop.load(Pilot.self, key: tourSyncedKey)?.value
        print("  Server now: \(onServer?.name ?? "none"), home \(onServer?.homeAirfield ?? "none")")
        let converged =
            onPhone?.name == onServer?.name && onLaptop?.name == onServer?.name
            && onPhone?.homeAirfield == onServer?.homeAirfield && onLaptop?.homeAirfield == onServer?.homeAirfield
            && onServer?.name == "Samantha Sync" && onServer?.homeAirfield == "EGLL"
        print("  Both devices equal the server, both edits kept: \(converged ? "yes" : "no: THIS IS A BUG")")
        await phone.close()
        await laptop.close()
        // Step 9 of the next run counts the pilots: this one goes, as step 8's does.
        try await store.write { _ = try await $0.delete(key: tourSyncedKey, in: Pilot.collection) }
    }
}
