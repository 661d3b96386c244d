// The follower latency rows (issue 12): how long after a commit a follower of the change feed has the change.
//
// - follow-in-process: the benchmark commits one save at a time through a store that a follower task follows;
//   the time from just before `write` (so it includes the commit, synchronous NORMAL) to the follower's
//   `next()` returning it. The commit wakes the follower; polling plays no part.
// - follow-cross-process: a child process (this executable, `--commit-child`) commits saves at random
//   intervals; each carries the system's monotonic clock just before its `write`, and the follower in this
//   process computes the delay when it sees the change (by polling, every `followPollInterval`).
import Foundation
import Hangar
import HangarSQLite
import PropertyList
import Synchronization

/// The operations of this section, for `--filter`.
enum FollowOperation: String, CaseIterable {
    case inProcess = "follow-in-process"
    case crossProcess = "follow-cross-process"
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// What the follower has seen: one delay (ns) per change, and a semaphore signalled for each.
private final class Deliveries: Sendable {
    let delays = Mutex<[Int64]>([])
    let arrived = DispatchSemaphore(value: 0)
}

private func latencyConfiguration() -> SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration(path: "")
    configuration.synchronous = .normal
    return configuration
}

private func envelope(_ index: Int, stamp: Int64) -> PropertyList {
    .dictionary(["majorVersion": 1, "minorVersion": 0, "index": .integer(.init(index)), "t": .integer(.init(stamp))])
}

/// Starts a task following `store` after `start` in collection "follow"; `delay` turns a change into its delay.
private func startFollower(
    _ store: SQLiteStore, after start: Int, deliveries: Deliveries,
    delay: @escaping @Sendable (SQLiteStore, Change, Int64) throws -> Int64
) -> Task<Void, any Error> {
    Task {
        for try await change in store.follow(after: start, in: "follow") {
            let now = monotonicNanoseconds()
            let value = try delay(store, change, now)
            deliveries.delays.withLock { $0.append(value) }
            deliveries.arrived.signal()
        }
    }
}

/// In process: `count` commits, each waited for by the follower before the next (2 ms apart, so that the
/// follower is asleep when the commit comes).
func measureInProcessFollowLatency(directory: String, count: Int) throws -> [Int64] {
    let path = directory + "/follow-in-process.sqlite"
    removeDatabase(at: path)
    let store = try SQLiteStore(configuration: latencyConfiguration().at(path))
    let start = try store.read { try $0.lastChangeSequence() }
    let stamps = Mutex<[Int64]>([])
    let deliveries = Deliveries()
    let follower = startFollower(store, after: start, deliveries: deliveries) { _, change, now in
        now - stamps.withLock { $0[change.sequence - start - 1] }
    }
    defer { follower.cancel() }
    for index in 0..<count {
        usleep(2_000)
        let stamp = monotonicNanoseconds()
        stamps.withLock { $0.append(stamp) }
        try store.write { try $0.save(envelope: envelope(index, stamp: stamp), key: "k\(index % 50)", in: "follow") }
        guard deliveries.arrived.wait(timeout: .now() + 10) == .success else {
            throw UsageError("the in-process follower did not see commit \(index) within 10 s")
        }
    }
    return deliveries.delays.withLock { $0 }
}

/// Across processes: a child commits `count` saves, 10 to 40 ms apart; the follower here polls.
func measureCrossProcessFollowLatency(directory: String, count: Int) throws -> [Int64] {
    let path = directory + "/follow-cross-process.sqlite"
    removeDatabase(at: path)
    let store = try SQLiteStore(configuration: latencyConfiguration().at(path))
    let start = try store.read { try $0.lastChangeSequence() }
    let deliveries = Deliveries()
    let follower = startFollower(store, after: start, deliveries: deliveries) { store, change, now in
        let body = try store.read { try $0.document(in: "follow", key: change.key)?.envelope() }
        guard let stamp = body?["t"]?.integerValue?.int64Value else { throw UsageError("no stamp in \(change.key)") }
        return now - stamp
    }
    defer { follower.cancel() }
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["--commit-child", path, "\(count)"]
    try child.run()
    for index in 0..<count where deliveries.arrived.wait(timeout: .now() + 30) != .success {
        child.terminate()
        throw UsageError("the follower did not see the child's commit \(index) within 30 s")
    }
    child.waitUntilExit()
    guard child.terminationStatus == 0 else { throw UsageError("the committing child failed") }
    return deliveries.delays.withLock { $0 }
}

/// The hidden child mode: commits `arguments[1]` saves to the store at `arguments[0]`, 10 to 40 ms apart, each
/// stamped with the monotonic clock just before its write; then exits.
func runCommitChild(_ arguments: [String]) -> Never {
    guard arguments.count == 2, let count = Int(arguments[1]) else { exit(2) }
    do {
        let store = try SQLiteStore(configuration: latencyConfiguration().at(arguments[0]))
        for index in 0..<count {
            usleep(UInt32.random(in: 10_000...40_000))
            let stamp = monotonicNanoseconds()
            try store.write {
                try $0.save(envelope: envelope(index, stamp: stamp), key: "k\(index % 50)", in: "follow")
            }
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("hangar-bench --commit-child: \(error)\n".utf8))
        exit(1)
    }
}

/// Median and 99th percentile of `delays` (ns), as text in `unit`.
func latencySummary(_ delays: [Int64], unit: (name: String, nanoseconds: Double)) -> String {
    let sorted = delays.sorted()
    guard !sorted.isEmpty else { return "no samples" }
    func at(_ fraction: Double) -> String {
        let value = Double(sorted[Int((Double(sorted.count - 1) * fraction).rounded())]) / unit.nanoseconds
        return fixed(value, 1) + " " + unit.name
    }
    return "median \(at(0.5)), p99 \(at(0.99)), min \(at(0)), max \(at(1)) (\(sorted.count) commits)"
}

/// The follower latency section: the operations `options` selects.
func runFollowLatencySection(options: Options, directory: String) throws {
    let operations = FollowOperation.allCases.filter { options.includes(operationNamed: $0.rawValue) }
    guard !operations.isEmpty else { return }
    let interval = StoreConfiguration().followPollInterval
    print("\n== follower latency (synchronous NORMAL) [\(operations.map(\.rawValue).joined(separator: ", "))] ==")
    for operation in operations {
        switch operation {
        case .inProcess:
            let delays = try measureInProcessFollowLatency(directory: directory, count: options.quick ? 100 : 1_000)
            print(
                "in process, a commit wakes the follower (from before write to next()): "
                    + latencySummary(delays, unit: ("us", 1_000)))
        case .crossProcess:
            let delays = try measureCrossProcessFollowLatency(directory: directory, count: options.quick ? 40 : 200)
            print(
                "across processes, a child commits and the follower polls every \(interval): "
                    + latencySummary(delays, unit: ("ms", 1_000_000)))
        }
        fflush(nil)
    }
}
