import Dispatch
import Hangar
import PilotModels
import Synchronization

extension Tour {
    /// The key step 8 saves, saves again and deletes.
    static let followedKey = "SE-FEED-0001"

    // MARK: 8

    /// A follower of the change feed, started before three commits, sees each of them once, in order.
    func followChanges() throws {
        heading(8, "Follow the change feed")
        let start = try store.read { try $0.lastChangeSequence() }
        print("  A follower waits for what comes after sequence \(start), the last commit so far")
        let seen = Mutex<[Change]>([])
        let caughtUp = DispatchSemaphore(value: 0)
        let follower = Task { [store] in
            for try await change in store.follow(after: start, in: Pilot.collection) {
                let count = seen.withLock { seen in
                    seen.append(change)
                    return seen.count
                }
                if count == 3 { caughtUp.signal() }
            }
        }
        defer { follower.cancel() }
        // Three commits: a new pilot, an update, a delete.
        var pilot = Fleet.mei
        try store.write { try $0.save(pilot, key: Self.followedKey) }
        pilot.homeAirfield = "ESSB"
        try store.write { try $0.save(pilot, key: Self.followedKey) }
        try store.write { _ = try $0.delete(key: Self.followedKey, in: Pilot.collection) }
        print("  The tour commits: a save, a second save, a delete of \(Pilot.collection)/\(Self.followedKey)")
        guard caughtUp.wait(timeout: .now() + 10) == .success else {
            throw TourError("the follower did not see the three commits within 10 s")
        }
        let changes = seen.withLock { $0 }
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
