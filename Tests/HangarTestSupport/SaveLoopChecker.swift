public import Hangar
import PropertyList

/// What `hangar-stress save-loop` children acknowledged, and the checks of a store against it (on any engine):
/// every acknowledged save is there byte for byte (or pruned behind a later one by its collection's history
/// policy), histories are contiguous and never go back, and no transaction is half there.
public struct SaveLoopChecker: Sendable {
    /// One revision of one document.
    public struct Revision: Hashable, Sendable {
        public let collection: String
        public let key: String
        public let revision: Int
        public var name: String { "\(collection)/\(key)@\(revision)" }

        public init(collection: String, key: String, revision: Int) {
            self.collection = collection
            self.key = key
            self.revision = revision
        }
    }

    /// Every kept revision of every document of the checked collections, read in one transaction.
    public struct Snapshot: Sendable {
        var revisions: [Revision: [UInt8]] = [:]
        var current: [String: Int] = [:]
        var history: [String: [Int]] = [:]

        public init() {}

        /// Adds one kept revision (`info`, with its body, nil when it could not be read).
        public mutating func add(collection: String, key: String, info: RevisionInfo, body: [UInt8]?) {
            let name = "\(collection)/\(key)"
            history[name, default: []].append(info.revision)
            if info.isCurrent { current[name] = info.revision }
            revisions[Revision(collection: collection, key: key, revision: info.revision)] = body
        }

        /// The current revision of every document, by `collection/key`.
        public var currentRevisions: [String: Int] { current }
    }

    /// A line from a child that is not a save loop's.
    public struct BadLine: Error, CustomStringConvertible {
        public let description: String
    }

    /// How many earlier revisions each collection keeps (as `stressConfiguration` says); nil for all.
    public static let kept: [String: Int?] = ["ledger": nil, "recent": 2]

    public private(set) var acknowledged: [Revision: [UInt8]] = [:]
    public private(set) var acknowledgedWrites = 0
    public private(set) var multiDocumentWrites = 0
    public private(set) var checkedRevisions = 0
    /// Saves that committed but were never reported: the child died between commit and its line.
    private var unacknowledgedCommits: Set<Revision> = []
    public var committedUnacknowledged: Int { unacknowledgedCommits.count }
    /// Acknowledged saves checked, summed over every verification.
    public private(set) var acknowledgementChecks = 0
    private var lastSeenCurrent: [String: Int] = [:]
    public var acknowledgedSaves: Int { acknowledged.count }

    public init() {}

    /// Takes in the lines of one child: `ack TX collection/key@revision=hex …` (`ready` and `done …` skipped).
    public mutating func record(_ lines: [String]) throws {
        for line in lines where line != "ready" && !line.hasPrefix("done") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 && fields[0] == "ack" else {
                throw BadLine(description: "unexpected line from the child: \(line)")
            }
            acknowledgedWrites += 1
            if fields.count > 3 { multiDocumentWrites += 1 }
            for field in fields.dropFirst(2) {
                let parts = field.split(separator: "=", maxSplits: 1)
                guard let revision = Self.parse(String(parts[0])), parts.count == 2,
                    let bytes = Self.bytes(hex: parts[1])
                else { throw BadLine(description: "bad member \(field)") }
                acknowledged[revision] = bytes
            }
        }
    }

    /// Every kept revision of the save loop's collections in `store`, read in one transaction.
    public static func snapshot<Engine: DocumentStore>(of store: Engine) async throws -> Snapshot {
        try await store.read { transaction in
            var snapshot = Snapshot()
            for collection in kept.keys {
                for key in try await transaction.keys(in: collection) {
                    for info in try await transaction.history(in: collection, key: key) {
                        let stored = try await transaction.document(in: collection, key: key, revision: info.revision)
                        snapshot.add(collection: collection, key: key, info: info, body: stored?.body)
                    }
                }
            }
            return snapshot
        }
    }

    /// Checks `snapshot` against everything acknowledged so far; returns every problem found.
    public mutating func verify(_ snapshot: Snapshot) -> [String] {
        var problems: [String] = []
        checkedRevisions += snapshot.revisions.count
        problems += checkHistories(snapshot)
        problems += checkAcknowledged(snapshot)
        problems += checkTransactions(snapshot)
        return problems
    }

    /// History: contiguous, ending at the current revision, as long as the collection's policy says; never
    /// behind what an earlier check saw.
    private mutating func checkHistories(_ snapshot: Snapshot) -> [String] {
        var problems: [String] = []
        for (name, kept) in snapshot.history {
            let collection = String(name.split(separator: "/")[0])
            guard let last = snapshot.current[name], kept.last == last else {
                problems.append("\(name): history \(kept) does not end with a current revision")
                continue
            }
            let first = Self.kept[collection].flatMap { $0 }.map { max(1, last - $0) } ?? 1
            if kept != Array(first...last) { problems.append("\(name): history \(kept), expected \(first)...\(last)") }
            if let previous = lastSeenCurrent[name], previous > last {
                problems.append("\(name): revision \(previous) was seen after an earlier kill, now only \(last)")
            }
        }
        for (name, previous) in lastSeenCurrent where snapshot.current[name] == nil {
            problems.append("\(name): revision \(previous) was seen after an earlier kill, now the document is gone")
        }
        lastSeenCurrent = snapshot.current
        return problems
    }

    /// Every acknowledged save: its exact bytes at its exact revision, or pruned by the policy behind a later one.
    private mutating func checkAcknowledged(_ snapshot: Snapshot) -> [String] {
        var problems: [String] = []
        acknowledgementChecks += acknowledged.count
        for (revision, bytes) in acknowledged {
            let latest = snapshot.current["\(revision.collection)/\(revision.key)"] ?? 0
            if let stored = snapshot.revisions[revision] {
                if stored != bytes {
                    problems.append("\(revision.name): acknowledged bytes differ from the stored ones")
                }
            } else if let keep = Self.kept[revision.collection].flatMap({ $0 }), latest > revision.revision + keep {
                continue
            } else {
                problems.append("\(revision.name): acknowledged but missing (current revision \(latest))")
            }
        }
        return problems
    }

    /// Transactions: each stored revision names its transaction and all members; every member is there, with
    /// the same transaction, unless the history policy has since pruned it.
    private mutating func checkTransactions(_ snapshot: Snapshot) -> [String] {
        var problems: [String] = []
        var members: [String: [String]] = [:]
        var present: [String: Set<String>] = [:]
        for (revision, body) in snapshot.revisions {
            guard let content = try? PropertyList(binary: body).dictionaryValue,
                let transaction = content["tx"]?.stringValue,
                let list = content["members"]?.arrayValue?.compactMap(\.stringValue),
                content["key"]?.stringValue == revision.key,
                content["revision"]?.integerValue?.int64Value == Int64(revision.revision)
            else {
                problems.append("\(revision.name): the stored body is not the document written at that revision")
                continue
            }
            if acknowledged[revision] == nil { unacknowledgedCommits.insert(revision) }
            if let known = members[transaction], known != list {
                problems.append("\(revision.name): transaction \(transaction) lists \(list), another member \(known)")
            }
            members[transaction] = list
            present[transaction, default: []].insert(revision.name)
        }
        for (transaction, list) in members {
            for member in list where !(present[transaction]?.contains(member) ?? false) {
                guard let parsed = Self.parse(member) else {
                    problems.append("transaction \(transaction): bad member \(member)")
                    continue
                }
                let latest = snapshot.current["\(parsed.collection)/\(parsed.key)"] ?? 0
                if let keep = Self.kept[parsed.collection].flatMap({ $0 }), latest > parsed.revision + keep { continue }
                problems.append("transaction \(transaction) is half applied: \(member) is missing")
            }
        }
        return problems
    }

    /// `collection/key@revision` parsed.
    public static func parse(_ text: String) -> Revision? {
        guard let slash = text.firstIndex(of: "/"), let at = text.lastIndex(of: "@"), slash < at,
            let revision = Int(text[text.index(after: at)...])
        else { return nil }
        return Revision(
            collection: String(text[..<slash]), key: String(text[text.index(after: slash)..<at]), revision: revision)
    }

    /// Bytes from lowercase hexadecimal digits; nil for anything else.
    public static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
