import Foundation
import Hangar
import HangarSQLite
import PropertyList

// MARK: live-writes

/// `hangar-stress live-writes DB KEY=HOURS…`: saves each document of the live queries' collection ("live",
/// `{"hours": HOURS}`), one transaction each, opening the store with the configuration the behaviour suite's live
/// queries use (`StoreBehaviour.liveConfiguration()`: the collection's index of hours, every change kept), so that
/// opening it changes no index. Prints `saved KEY SEQUENCE` for each, then exits 0.
func liveWrites(path: String, saves: [String]) {
    var configuration = StoreConfiguration()
    configuration.changeRetention = .keepAll
    configuration.collections[ExactString("live")] = CollectionOptions(indexes: [.path("hours", name: "hours")])
    do {
        let store = try SQLiteStore(path: path, store: configuration)
        for save in saves {
            let parts = save.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let hours = Int(parts[1]) else { fail("not KEY=HOURS: \(save)") }
            let envelope: PropertyList = .dictionary([
                "majorVersion": 1, "minorVersion": 0, "hours": .integer(.init(hours)),
            ])
            try store.write { try $0.save(envelope: envelope, key: parts[0], in: "live") }
            emit("saved \(parts[0]) \(try store.read { try $0.lastChangeSequence() })")
        }
    } catch {
        fail("live-writes failed: \(error)")
    }
}
