import Foundation
import Hangar
import HangarSQLite
import HangarSync
import HangarTestSupport
import PilotModels
import PropertyList
import Testing

/// A model-based random test: three clients save, delete and sync six keys at random while requests and answers
/// are lost at random; seeded and printed. Then, once quiet: every client holds exactly the server's documents at
/// its revisions (guarantee 3), and each client's last save of a key is found on the server (current or in its
/// history) or in that client's conflict copies (guarantees 1 and 5: nothing a user saved is silently lost).
@Suite struct SyncRandomTests {
    /// Fixed seeds (200 consecutive ones passed when this was written), and `HANGAR_SYNC_SEED` when set.
    static let seeds: [UInt64] =
        [11, 22, 33, 44, 55]
        + (ProcessInfo.processInfo.environment["HANGAR_SYNC_SEED"].flatMap { UInt64($0) }.map { [$0] } ?? [])

    @Test(arguments: seeds)
    func randomEditsSyncsAndLostMessagesConverge(seed: UInt64) async throws {
        print("randomEditsSyncsAndLostMessagesConverge: seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        let world = try SyncWorld(batchLimit: 4)
        let clients = try (0..<3).map { try world.client("c\($0)") }
        // The model: each client's last saved name per key (nil: its last act on the key was a delete).
        var lastSaved: [[String: String?]] = Array(repeating: [:], count: clients.count)
        let faults: [FaultyTransport.Fault] = [.pass, .pass, .dropRequest, .dropAnswer]
        for step in 0..<80 {
            let index = Int.random(in: 0..<clients.count, using: &generator)
            let client = clients[index]
            let key = "k\(Int.random(in: 0..<6, using: &generator))"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let name = "c\(index)-s\(step)"
                try await client.save(name, key: key)
                lastSaved[index][key] = .some(name)
            case 5:
                if try await client.pilot(key) != nil {
                    try await client.store.write { _ = try await $0.delete(key: key, in: Pilot.collection) }
                    lastSaved[index][key] = .some(nil)
                }
            default:
                let operation = ["pull", "push", "snapshot"][Int.random(in: 0..<3, using: &generator)]
                client.transport.inject(faults[Int.random(in: 0..<faults.count, using: &generator)], on: operation)
                _ = try? await client.sync()
            }
        }
        for client in clients { client.transport.clearFaults() }
        for _ in 0..<3 {
            for client in clients { _ = try await client.sync() }
        }
        for client in clients {
            #expect(try await world.isInStep(client), "seed \(seed)")
        }
        for (index, saved) in lastSaved.enumerated() {
            let copies = try await clients[index].replica.conflictCopies(in: Pilot.collection)
            for (key, name) in saved {
                guard let name = name else { continue }
                let onServer = try await world.server.read { reader in
                    try reader.history(in: Pilot.collection, key: key).compactMap {
                        try reader.load(Pilot.self, key: key, revision: $0.revision)?.value.name
                    }
                }
                let copied = copies[ExactString(key)]??["name"]?.stringValue
                #expect(onServer.contains(name) || copied == name, "seed \(seed): c\(index) \(key) \(name) lost")
            }
        }
        await world.close(clients[0], clients[1], clients[2])
    }
}
