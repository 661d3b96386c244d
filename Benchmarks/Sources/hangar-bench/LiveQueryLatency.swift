// The live-query latency row (issue 37): how long after a commit a live query (`store.observe(_:)`) has the page
// that the commit changed.
//
// live-query: 10,000 documents with an indexed number of hours (0 to 9,999); 20 live queries open, query q over the
// hours q * 500 to q * 500 + 499, 20 a page. Each update saves a document of one query's page (a new number of hours
// inside that page): it touches that query, and the 19 others see the change and compare it with their range (one
// lookup of the key's entries each) without reading their pages. The delay runs from just before `write` (so it
// includes the commit, synchronous NORMAL) to the touched query's element arriving in its consumer task.
import Foundation
import Hangar
import HangarSQLite
import PropertyList
import Synchronization

/// The operations of this section, for `--filter`.
enum LiveQueryOperation: String, CaseIterable {
    case latency = "live-query"
}

private let liveQueries = 20
private let liveDocuments = 10_000
private let liveRange = 500
private let livePage = 20

/// What the consumers have seen: one delay (ns) per element, which query it came from, and a semaphore.
private final class LiveDeliveries: Sendable {
    let delays = Mutex<[Int64]>([])
    let sources = Mutex<[Int]>([])
    let stamp = Mutex<Int64>(0)
    let arrived = DispatchSemaphore(value: 0)
}

private func liveEnvelope(hours: Int) -> PropertyList {
    .dictionary(["majorVersion": 1, "minorVersion": 0, "hours": .integer(.init(hours))])
}

private func liveConfiguration(_ path: String) -> SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration(path: path)
    configuration.synchronous = .normal
    configuration.store.collections[ExactString("live")] = CollectionOptions(indexes: [.path("hours", name: "hours")])
    return configuration
}

/// `updates` updates, each touching one of the 20 open live queries, one at a time: the delays (ns) from before each
/// write to its query's element.
func measureLiveQueryLatency(directory: String, updates: Int) throws -> [Int64] {
    let path = directory + "/live-query.sqlite"
    removeDatabase(at: path)
    let store = try SQLiteStore(configuration: liveConfiguration(path))
    try store.write { transaction in
        for index in 0..<liveDocuments {
            try transaction.save(envelope: liveEnvelope(hours: index), key: "d\(index)", in: "live")
        }
    }
    let deliveries = LiveDeliveries()
    let consumers = (0..<liveQueries).map { query in
        Task {
            let range = IndexQuery.Match.range(
                from: .included(.integer(.init(query * liveRange))),
                to: .included(.integer(.init(query * liveRange + liveRange - 1))))
            var first = true
            for try await _ in store.observe(
                IndexQuery(collection: "live", index: "hours", match: range, limit: livePage))
            {
                let now = monotonicNanoseconds()
                if first {
                    first = false
                } else {
                    deliveries.delays.withLock { $0.append(now - deliveries.stamp.withLock { $0 }) }
                    deliveries.sources.withLock { $0.append(query) }
                }
                deliveries.arrived.signal()
            }
        }
    }
    defer { for consumer in consumers { consumer.cancel() } }
    for _ in 0..<liveQueries where deliveries.arrived.wait(timeout: .now() + 30) != .success {
        throw UsageError("a live query's first page did not come within 30 s")
    }
    for update in 0..<updates {
        usleep(2_000)
        let query = update % liveQueries
        // A document of the query's page, moved to another place inside the page.
        let hours = query * liveRange + (update / liveQueries) % livePage
        let moved = query * liveRange + (update / liveQueries + 7) % livePage
        deliveries.stamp.withLock { $0 = monotonicNanoseconds() }
        try store.write { try $0.save(envelope: liveEnvelope(hours: moved), key: "d\(hours)", in: "live") }
        guard deliveries.arrived.wait(timeout: .now() + 10) == .success else {
            throw UsageError("live query \(query) did not see update \(update) within 10 s")
        }
        // Only the touched query answers: it did, and no other.
        guard deliveries.sources.withLock({ $0.last }) == query else {
            throw UsageError("update \(update) reached another query than \(query)")
        }
        // Put it back, untimed, so that every round starts from the same pages.
        try store.write { try $0.save(envelope: liveEnvelope(hours: hours), key: "d\(hours)", in: "live") }
        guard deliveries.arrived.wait(timeout: .now() + 10) == .success else {
            throw UsageError("live query \(query) did not see update \(update) undone within 10 s")
        }
        deliveries.delays.withLock { _ = $0.popLast() }
    }
    let elements = deliveries.sources.withLock { $0.count }
    guard elements == 2 * updates else {
        throw UsageError("\(elements) elements for \(2 * updates) touching updates: a change touched no query twice")
    }
    return deliveries.delays.withLock { $0 }
}

/// Median, 95th and 99th percentiles of `delays` (ns) in ms.
func percentileSummary(_ delays: [Int64]) -> String {
    let sorted = delays.sorted()
    guard !sorted.isEmpty else { return "no samples" }
    func at(_ fraction: Double) -> String {
        fixed(Double(sorted[Int((Double(sorted.count - 1) * fraction).rounded())]) / 1_000_000, 2) + " ms"
    }
    return "p50 \(at(0.5)), p95 \(at(0.95)), p99 \(at(0.99)), max \(at(1)) (\(sorted.count) updates)"
}

/// The live-query latency section, when `options` selects it.
func runLiveQuerySection(options: Options, directory: String) throws {
    guard options.includes(operationNamed: LiveQueryOperation.latency.rawValue) else { return }
    print("\n== live-query latency (synchronous NORMAL) [live-query] ==")
    let delays = try measureLiveQueryLatency(directory: directory, updates: options.quick ? 100 : 1_000)
    print(
        "\(liveDocuments) documents, \(liveQueries) live queries of \(livePage), an update touching one, from before "
            + "write to its element: " + percentileSummary(delays))
    fflush(nil)
}
