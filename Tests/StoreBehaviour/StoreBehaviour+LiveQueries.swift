import Foundation
import Hangar
import PropertyList
import Testing

/// Live queries (`observe`): the first page, then one element per change that alters the page, each checked against
/// a brute-force evaluation of the query over a model of the collection; writes from another process (or instance);
/// cancellation.
extension StoreBehaviour {
    /// The live queries' collection: documents with a number of `hours`, indexed.
    static var liveCollection: String { "live" }

    /// ``configuration()`` with the live queries' collection and its index of hours; what `hangar-stress live-writes`
    /// opens the store with too.
    static func liveConfiguration() -> StoreConfiguration {
        var configuration = Self.configuration()
        configuration.collections[ExactString(liveCollection)] = CollectionOptions(indexes: [
            .path("hours", name: "hours")
        ])
        return configuration
    }

    /// A document of the live collection.
    static func liveDocument(hours: Int) -> PropertyList {
        Memo.envelope(major: 1, minor: 0, ["hours": .integer(.init(hours))])
    }

    func liveQueries() async throws {
        try await withStore(Self.liveConfiguration()) { store in
            var model = LiveModel()
            var random = SplitMix(seed: 37)
            for index in 0..<30 { model.hours[ExactString(String(format: "d%02d", index))] = index * 10 }
            try await store.write { transaction in
                for index in 0..<30 {
                    try await transaction.save(
                        envelope: Self.liveDocument(hours: index * 10), key: String(format: "d%02d", index), in: "live")
                }
            }
            let queries = [
                LiveModel.Query(lower: 50, upper: 250, descending: false, limit: 5),
                LiveModel.Query(lower: nil, upper: nil, descending: true, limit: 4),
            ]
            let watchers = queries.map { Watcher(store.observe($0.indexQuery)) }
            defer { for watcher in watchers { watcher.task.cancel() } }
            var pages: [[String]] = []
            for (watcher, query) in zip(watchers, queries) {
                let first = try await watcher.next()
                #expect(first.changes == nil, "\(engine): the first element carries no changes")
                #expect(first.sequence == 30, "\(engine): the first page is as of the last change")
                #expect(first.keys == model.page(query), "\(engine): the first page")
                pages.append(first.keys)
            }
            var touched = 0
            for step in 0..<60 {
                let write = model.randomWrite(&random, step: step)
                try await store.write { transaction in
                    if let hours = write.hours {
                        try await transaction.save(
                            envelope: Self.liveDocument(hours: hours), key: write.key, in: "live")
                    } else {
                        try await transaction.delete(key: write.key, in: "live")
                    }
                }
                model.apply(write)
                let sequence = try await store.lastChangeSequence()
                for (index, query) in queries.enumerated() {
                    let expected = model.page(query)
                    let written = write.hours != nil ? [write.key] : []
                    let change = LiveModel.Expected(old: pages[index], new: expected, written: written)
                    guard change.touches else { continue }
                    touched += 1
                    let element = try await watchers[index].next()
                    try check(element, against: change, sequence: sequence, query: "\(index) at step \(step)")
                    pages[index] = expected
                }
            }
            #expect(touched > 20, "\(engine): the random writes touched the queries \(touched) times")
            try await writesElsewhereArrive(store, &model, watchers[0], queries[0], page: pages[0])
            for watcher in watchers {
                watcher.task.cancel()
                // The iteration ends: the task returns (a leaked wait or listener would keep it running).
                #expect(try await watcher.task.value >= 1, "\(engine): cancelling ends the live query")
            }
        }
    }

    /// Writes from another process (or another instance) into the first query's range arrive as one element each.
    private func writesElsewhereArrive(
        _ store: Engine, _ model: inout LiveModel, _ watcher: Watcher, _ query: LiveModel.Query, page: [String]
    ) async throws {
        let other = try await reopen(store, Self.liveConfiguration())
        do {
            try await writeFromElsewhere(other, store, &model, watcher, query, page: page)
            await close(other)
        } catch {
            await close(other)
            throw error
        }
    }

    private func writeFromElsewhere(
        _ other: Engine, _ store: Engine, _ model: inout LiveModel, _ watcher: Watcher, _ query: LiveModel.Query,
        page: [String]
    ) async throws {
        var page = page
        for (key, hours) in [("a-elsewhere1", 50), ("a-elsewhere2", 50)] {
            if let writeElsewhere {
                try await writeElsewhere(store, [(key, hours)])
            } else {
                try await other.write {
                    try await $0.save(envelope: Self.liveDocument(hours: hours), key: key, in: "live")
                }
            }
            model.apply(LiveModel.Write(key: key, hours: hours))
            let expected = model.page(query)
            let change = LiveModel.Expected(old: page, new: expected, written: [key])
            #expect(change.touches, "\(engine): a write into the page's range")
            let element = try await watcher.next()
            try check(
                element, against: change, sequence: try await store.lastChangeSequence(), query: "from elsewhere")
            page = expected
        }
    }

    private func check(_ element: LiveQueryResult, against expected: LiveModel.Expected, sequence: Int, query: String)
        throws
    {
        let changes = try #require(element.changes, "\(engine): a later element carries changes")
        #expect(element.sequence == sequence, "\(engine) query \(query): as of the write (none in between)")
        #expect(element.keys == expected.new, "\(engine) query \(query): the page")
        #expect(changes.added == expected.added, "\(engine) query \(query): added")
        #expect(changes.removed == expected.removed, "\(engine) query \(query): removed")
        #expect(changes.revised == expected.revised, "\(engine) query \(query): revised")
        // Moved: the fewest kept keys whose leaving out keeps the others' order in both pages.
        let stayed = expected.kept.filter { key in !changes.moved.contains { $0.hasSameBytes(as: key) } }
        let oldOrder = expected.old.filter { key in stayed.contains { $0.hasSameBytes(as: key) } }
        #expect(oldOrder == stayed, "\(engine) query \(query): the keys not moved keep their order")
        #expect(changes.moved.count == expected.fewestMoved, "\(engine) query \(query): moved \(changes.moved)")
    }
}

/// A live query consumed by a task of its own, its elements queued for the test (which reads them from one task).
final class Watcher {
    let task: Task<Int, any Error>
    private var elements: AsyncStream<LiveQueryResult>.Iterator

    init<Store: DocumentStore>(_ live: LiveQuery<Store>) {
        let (elements, sink) = AsyncStream.makeStream(of: LiveQueryResult.self)
        self.elements = elements.makeAsyncIterator()
        task = Task {
            var count = 0
            defer { sink.finish() }
            for try await element in live {
                count += 1
                sink.yield(element)
            }
            return count
        }
    }

    /// The next element; a failure when the query ended, or when none came within `limit` (the query is then
    /// cancelled, so a live query that misses a change fails its test instead of hanging it).
    func next(within limit: Duration = .seconds(30)) async throws -> LiveQueryResult {
        let consumer = task
        let timer = Task {
            try await Task.sleep(for: limit)
            consumer.cancel()
        }
        guard let element = await elements.next() else {
            timer.cancel()
            if case .success = await timer.result {
                throw BehaviourFailure(description: "no element of the live query within \(limit)")
            }
            _ = try await task.value
            throw BehaviourFailure(description: "the live query ended")
        }
        timer.cancel()
        return element
    }
}

/// The live collection as the test wrote it, and its queries evaluated by brute force.
struct LiveModel {
    var hours: [ExactString: Int] = [:]

    struct Query {
        let lower: Int?
        let upper: Int?
        let descending: Bool
        let limit: Int

        var indexQuery: IndexQuery {
            let match: IndexQuery.Match =
                lower == nil && upper == nil
                ? .all
                : .range(
                    from: lower.map { .included(.integer(.init($0))) }, to: upper.map { .included(.integer(.init($0))) }
                )
            return IndexQuery(
                collection: "live", index: "hours", match: match, order: descending ? .descending : .ascending,
                limit: limit)
        }
    }

    struct Write {
        let key: String
        /// `nil`: a delete.
        let hours: Int?
    }

    /// The page of `query`: by hours, then key bytes; reversed when descending; the first `limit`.
    func page(_ query: Query) -> [String] {
        let matching = hours.filter { entry in
            (query.lower.map { entry.value >= $0 } ?? true) && (query.upper.map { entry.value <= $0 } ?? true)
        }
        let sorted = matching.sorted { first, second in
            first.value != second.value ? first.value < second.value : first.key < second.key
        }
        let ordered = query.descending ? Array(sorted.reversed()) : sorted
        return ordered.prefix(query.limit).map(\.key.string)
    }

    /// A save of a new or stored key (hours 0 to 300) or a delete of a stored one.
    mutating func randomWrite(_ random: inout SplitMix, step: Int) -> Write {
        let keys = hours.keys.sorted()
        switch random.next() % 5 {
        case 0 where !keys.isEmpty: return Write(key: keys[Int(random.next() % UInt64(keys.count))].string, hours: nil)
        case 1: return Write(key: "n\(step)", hours: Int(random.next() % 301))
        default:
            guard !keys.isEmpty else { return Write(key: "n\(step)", hours: 0) }
            return Write(key: keys[Int(random.next() % UInt64(keys.count))].string, hours: Int(random.next() % 301))
        }
    }

    mutating func apply(_ write: Write) {
        hours[ExactString(write.key)] = write.hours
    }

    /// What a live query should report from page `old` to page `new`, `written` naming the keys saved in between.
    struct Expected {
        let old: [String]
        let new: [String]
        let written: [String]

        private func contains(_ keys: [String], _ key: String) -> Bool { keys.contains { $0.hasSameBytes(as: key) } }

        var added: [String] { new.filter { !contains(old, $0) } }
        var removed: [String] { old.filter { !contains(new, $0) } }
        var kept: [String] { new.filter { contains(old, $0) } }
        var revised: [String] { kept.filter { contains(written, $0) } }
        var touches: Bool { !added.isEmpty || !removed.isEmpty || !revised.isEmpty || fewestMoved > 0 }

        /// The kept keys less the longest run of them in the same order in both pages (quadratic, by brute force).
        var fewestMoved: Int {
            let places = kept.compactMap { key in old.firstIndex { $0.hasSameBytes(as: key) } }
            var longest = [Int](repeating: 1, count: places.count)
            for index in places.indices {
                for before in 0..<index where places[before] < places[index] {
                    longest[index] = max(longest[index], longest[before] + 1)
                }
            }
            return places.count - (longest.max() ?? 0)
        }
    }
}
