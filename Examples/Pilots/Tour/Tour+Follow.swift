import Hangar
import PilotModels

/// The key step 8 saves, saves again and deletes.
let tourFollowedKey = "SE-FEED-0001"

extension Tour {
    // MARK: 8

    /// A follower of the change feed, started before three commits, sees each of them once, in order.
    func followChanges() async throws {
        heading(8, "Follow the change feed")
        let key = tourFollowedKey
        let start = try await store.lastChangeSequence()
        print("  A follower waits for what comes after sequence \(start), the last commit so far")
        // It reads from `start` on, so it sees the three commits however late it starts iterating.
        let follower = Task { [store] in
            var seen: [Change] = []
            for try await change in store.follow(after: start, in: Pilot.collection) {
                seen.append(change)
                if seen.count == 3 { break }
            }
            return seen
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            follower.cancel()
        }
        defer {
            watchdog.cancel()
            follower.cancel()
        }
        // Three commits: a new pilot, an update, a delete.
        var pilot = Fleet.mei
        try await store.write { try await $0.save(pilot, key: key) }
        pilot.homeAirfield = "ESSB"
        try await store.write { [pilot] in try await $0.save(pilot, key: key) }
        try await store.write { try await $0.delete(key: key, in: Pilot.collection) }
        print("  The tour commits: a save, a second save, a delete of \(Pilot.collection)/\(key)")
        let changes = (try? await follower.value) ?? []
        guard changes.count == 3 else {
            throw TourError("the follower did not see the three commits within 10 s")
        }
        for change in changes {
            print(
                "  follower saw \(pad("\(change.sequence)", 4)) \(change.collection)/\(change.key) "
                    + "revision \(change.revision) \(change.kind)")
        }
        let inOrder = changes.map(\.sequence) == Array((start + 1)...(start + 3))
        print("  In commit order, none missed: \(inOrder ? "yes" : "NO, THIS IS A BUG")")
        if let last = changes.last {
            print("  To resume after a restart, keep the last sequence seen and follow(after: \(last.sequence))")
        }
    }
}
