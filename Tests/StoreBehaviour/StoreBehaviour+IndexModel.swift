import Foundation
import Hangar
import PropertyList
import Testing

/// Index queries held to a brute-force model (random documents and queries, every page of every query), and paging
/// while another task writes.
extension StoreBehaviour {
    func indexQueriesAgainstAModel() async throws {
        for seed: UInt64 in [1, 2, 3] {
            try await withStore(Self.fleetConfiguration()) { store in
                var random = SplitMix(seed: seed)
                var model = IndexModel()
                for round in 0..<2 {
                    // Round 0 saves every document; round 1 rewrites some, deletes others.
                    try await store.write { transaction in
                        for key in IndexModel.keys where round == 0 || random.next() % 3 == 0 {
                            if round == 1, random.next() % 2 == 0 {
                                _ = try await transaction.delete(key: key, in: "fleet")
                                model.documents[ExactString(key)] = nil
                                continue
                            }
                            let document = model.randomDocument(&random)
                            try await transaction.save(envelope: document.envelope, key: key, in: "fleet")
                            model.documents[ExactString(key)] = document
                        }
                    }
                    for _ in 0..<40 {
                        try await checkQuery(model.randomQuery(&random), model: model, in: store, random: &random)
                    }
                }
            }
        }
    }

    private func checkQuery(_ query: IndexQuery, model: IndexModel, in store: Engine, random: inout SplitMix)
        async throws
    {
        let expected = model.results(of: query)
        var limits: [Int] = []
        for _ in 0..<3 { limits.append(Int(random.next() % 4) + 1) }
        let keys = try await Self.allPages(query, in: store, limits: limits)
        #expect(keys == expected.map(\.key), "\(engine): \(query.index) \(query.match) \(query.order)")
        let (count, bounds) = try await store.read { try await ($0.count(query), $0.bounds(query)) }
        #expect(count == expected.count, "\(engine): count of \(query.index) \(query.match)")
        let values = model.valuesInRange(of: query).sorted { IndexModel.compare($0, $1) < 0 }
        #expect(bounds.flatMap { IndexModel.shape($0.smallest) } == values.first.map(model.entire))
        #expect(bounds.flatMap { IndexModel.shape($0.largest) } == values.last.map(model.entire))
    }

    func pagingUnderConcurrentWriters() async throws {
        try await withStore(Self.fleetConfiguration()) { store in
            let stable = (0..<60).map { String(format: "s%02d", $0) }
            try await store.write { transaction in
                for (index, key) in stable.enumerated() {
                    let hours: [PropertyList] = [.integer(.init(index % 13)), .integer(.init(index % 13 + 20))]
                    try await transaction.save(
                        envelope: fleetPilot(base: "X", name: "n", hours: hours), key: key, in: "fleet")
                }
            }
            let writer = Task {
                var random = SplitMix(seed: 7)
                var writes = 0
                while !Task.isCancelled {
                    let key = "c\(random.next() % 20)"
                    try await store.write { transaction in
                        if random.next() % 4 == 0 {
                            _ = try await transaction.delete(key: key, in: "fleet")
                        } else {
                            let hours: [PropertyList] = [.integer(.init(random.next() % 40))]
                            try await transaction.save(
                                envelope: fleetPilot(base: "X", name: "n", hours: hours), key: key, in: "fleet")
                        }
                    }
                    writes += 1
                }
                return writes
            }
            for order in [IndexQuery.Order.ascending, .descending] {
                var query = IndexQuery(collection: "fleet", index: "hours", order: order, limit: 5)
                var seen: [String] = []
                while true {
                    let page = try await store.read { [query] in try await $0.page(query) }
                    seen += page.keys
                    guard let next = page.next else { break }
                    query.after = next
                    try await Task.sleep(for: .milliseconds(2))
                }
                let expectedStable = stable.enumerated().sorted { left, right in
                    let (a, b) = order == .ascending ? (left, right) : (right, left)
                    let (av, bv) =
                        order == .ascending ? (a.offset % 13, b.offset % 13) : (a.offset % 13 + 20, b.offset % 13 + 20)
                    return av != bv ? av < bv : a.element.utf8.lexicographicallyPrecedes(b.element.utf8)
                }.map(\.element)
                #expect(seen.filter { $0.hasPrefix("s") } == expectedStable, "\(engine) \(order): each once, in order")
                var counts: [ExactString: Int] = [:]
                for key in seen { counts[ExactString(key), default: 0] += 1 }
                #expect(counts.filter { $0.value > 1 && !$0.key.string.hasPrefix("c") }.isEmpty)
            }
            writer.cancel()
            let writes = try await writer.value
            #expect(writes > 0, "the writer wrote while the pages were read")
        }
    }
}

/// A random number generator with a seed (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The brute-force model of the fleet's two indexes: each value a comparable model value, each query answered by
/// looking at every document.
struct IndexModel {
    /// A value as the index orders it: Booleans, then numbers (doubled, exact), then strings by their bytes.
    enum Value: Equatable {
        case boolean(Bool)
        case number(Int128)
        case string([UInt8])

        var rank: Int {
            switch self {
            case .boolean: 0
            case .number: 1
            case .string: 2
            }
        }
    }

    struct Document {
        let base: PropertyList?
        let name: PropertyList?
        let hours: [PropertyList]
        var envelope: PropertyList { fleetPilot(base: base, name: name, hours: hours) }
    }

    static let keys = (0..<24).map { "k\($0)" } + ["\u{E9}1", "e\u{301}1", "a b"]
    static let bases: [PropertyList] = ["A", "B", "caf\u{E9}", "cafe\u{301}", "a\u{0}", 1, 2.5, true]
    static let names: [PropertyList] = ["x", "y", "z", "x\u{0}"]
    static let hours: [PropertyList] = [
        -1, 0, 0.5, 1, 2, 2.5, 3, .integer(.init((UInt64(1) << 63) + 5)), .integer(.init(UInt64.max)),
        .integer(.init(Int64.min)), 3.0,
    ]

    var documents: [ExactString: Document] = [:]

    func randomDocument(_ random: inout SplitMix) -> Document {
        let base = random.next() % 6 == 0 ? nil : Self.bases[Int(random.next() % UInt64(Self.bases.count))]
        let name = random.next() % 6 == 0 ? nil : Self.names[Int(random.next() % UInt64(Self.names.count))]
        let count = Int(random.next() % 4)
        let hours = (0..<count).map { _ in Self.hours[Int(random.next() % UInt64(Self.hours.count))] }
        return Document(base: base, name: name, hours: hours)
    }

    func randomQuery(_ random: inout SplitMix) -> IndexQuery {
        let compound = random.next() % 2 == 0
        func value(_ length: Int) -> PropertyList {
            guard compound else { return Self.hours[Int(random.next() % UInt64(Self.hours.count))] }
            var parts = [Self.bases[Int(random.next() % UInt64(Self.bases.count))]]
            if length > 1 { parts.append(Self.names[Int(random.next() % UInt64(Self.names.count))]) }
            return .array(parts)
        }
        func bound() -> IndexQuery.Bound? {
            switch random.next() % 3 {
            case 0: nil
            case 1: .included(value(Int(random.next() % 2) + 1))
            default: .excluded(value(Int(random.next() % 2) + 1))
            }
        }
        let match: IndexQuery.Match
        switch random.next() % (compound ? 4 : 3) {
        case 0: match = .all
        case 1: match = .equal(value(2))
        case 2: match = .range(from: bound(), to: bound())
        default:
            var parts = [Self.bases[Int(random.next() % UInt64(Self.bases.count))]]
            if random.next() % 2 == 0 { parts.append(Self.names[Int(random.next() % UInt64(Self.names.count))]) }
            match = .prefix(parts)
        }
        return IndexQuery(
            collection: "fleet", index: compound ? "baseName" : "hours", match: match,
            order: random.next() % 2 == 0 ? .ascending : .descending)
    }

    /// The index's entries of a document, as tuples of model values.
    func entries(_ document: Document, compound: Bool) -> [[Value]] {
        if compound {
            guard let base = document.base.flatMap(Self.value), let name = document.name.flatMap(Self.value) else {
                return []
            }
            return [[base, name]]
        }
        return document.hours.compactMap(Self.value).map { [$0] }
    }

    /// Every value in `query`'s range, of every document.
    func valuesInRange(of query: IndexQuery) -> [[Value]] {
        documents.values.flatMap {
            entries($0, compound: query.index == "baseName").filter { matches($0, query.match) }
        }
    }

    /// The expected results of `query`, in order: each key at its first value in the range.
    func results(of query: IndexQuery) -> [(key: String, value: [Value])] {
        let compound = query.index == "baseName"
        let descending = query.order == .descending
        var found: [(key: String, value: [Value])] = []
        for (key, document) in documents {
            let inRange = entries(document, compound: compound).filter { matches($0, query.match) }
            let first = inRange.min { descending ? Self.compare($0, $1) > 0 : Self.compare($0, $1) < 0 }
            if let first { found.append((key.string, first)) }
        }
        return found.sorted { left, right in
            let order = Self.compare(left.value, right.value)
            let before = order != 0 ? order < 0 : left.key.utf8.lexicographicallyPrecedes(right.key.utf8)
            return descending ? !before : before
        }
    }

    func entire(_ value: [Value]) -> PropertyListShape { value.count == 1 ? .one(value[0]) : .many(value) }

    /// A value shaped as ``IndexModel/entire(_:)`` shapes one, from what `bounds` returned.
    static func shape(_ list: PropertyList) -> PropertyListShape? {
        if case .array(let parts) = list {
            let values = parts.compactMap { value($0) }
            return values.count == parts.count ? .many(values) : nil
        }
        return value(list).map { .one($0) }
    }

    private func matches(_ entry: [Value], _ match: IndexQuery.Match) -> Bool {
        switch match {
        case .all: return true
        case .equal(let value): return Self.compare(entry, Self.tuple(value)) == 0
        case .prefix(let parts): return Self.comparePrefix(entry, parts.compactMap(Self.value)) == 0
        case .range(let lower, let upper):
            if let lower {
                switch lower {
                case .included(let bound): if Self.comparePrefix(entry, Self.tuple(bound)) < 0 { return false }
                case .excluded(let bound): if Self.comparePrefix(entry, Self.tuple(bound)) <= 0 { return false }
                }
            }
            if let upper {
                switch upper {
                case .included(let bound): if Self.comparePrefix(entry, Self.tuple(bound)) > 0 { return false }
                case .excluded(let bound): if Self.comparePrefix(entry, Self.tuple(bound)) >= 0 { return false }
                }
            }
            // One end open: the range holds the other bound's type only.
            let other: IndexQuery.Bound? = lower == nil ? upper : (upper == nil ? lower : nil)
            if let other {
                let bound: PropertyList
                switch other {
                case .included(let value), .excluded(let value): bound = value
                }
                guard let first = Self.tuple(bound).first, entry[0].rank == first.rank else { return false }
            }
            return true
        }
    }

    static func tuple(_ value: PropertyList) -> [Value] {
        if case .array(let parts) = value { return parts.compactMap(Self.value) }
        return Self.value(value).map { [$0] } ?? []
    }

    static func value(_ value: PropertyList) -> Value? {
        switch value {
        case .boolean(let flag): return .boolean(flag)
        case .integer(let integer):
            if let signed = integer.int64Value { return .number(Int128(signed) * 2) }
            return integer.uint64Value.map { .number(Int128($0) * 2) }
        case .real(let real): return .number(Int128(real * 2))
        case .string(let string): return .string(Array(string.utf8))
        default: return nil
        }
    }

    static func compare(_ left: Value, _ right: Value) -> Int {
        switch (left, right) {
        case (.boolean(let a), .boolean(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.number(let a), .number(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let a), .string(let b)):
            return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
        default: return left.rank < right.rank ? -1 : 1
        }
    }

    static func compare(_ left: [Value], _ right: [Value]) -> Int {
        for (a, b) in zip(left, right) where compare(a, b) != 0 { return compare(a, b) }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// `entry` compared with `bound` on the bound's components only (0: the entry begins with the bound).
    static func comparePrefix(_ entry: [Value], _ bound: [Value]) -> Int {
        compare(Array(entry.prefix(bound.count)), bound)
    }
}

/// A bound's value as the model compares it: one value, or a compound's components.
enum PropertyListShape: Equatable {
    case one(IndexModel.Value)
    case many([IndexModel.Value])
}
