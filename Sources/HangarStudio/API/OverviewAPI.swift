import Foundation
import Hangar
import Hummingbird
import PropertyList

extension HangarStudio {
    /// `GET api/overview`: the store (engine, where it is, its sizes), the change feed's range
    /// and retention, and each collection with its current document count, its declared format and history.
    /// Cheap at any size: the counts are the engine's; bytes and versions come from ``versions(_:)``.
    func overview() async throws -> Response {
        let (names, counts, last) = try await store.read { reader in
            let names = try await reader.collections()
            var counts: [Int] = []
            for name in names { counts.append(try await reader.count(in: name)) }
            return (names, counts, try await reader.lastChangeSequence())
        }
        var first: PropertyList = .boolean(false)
        do {
            let oldest = try await store.read { try await $0.changes(since: 0, in: nil, limit: 1) }
            if let change = oldest.first { first = StudioJSON.int(change.sequence) }
        } catch let error as HangarError where error.code == .changesTooOld {
            first = .string("pruned")
        }
        var collections: [PropertyList] = []
        for (name, count) in zip(names, counts) {
            var entry: PropertyList.Dictionary = [
                "name": .string(name), "count": StudioJSON.int(count),
                "reserved": .boolean(name.utf8.starts(with: "_sync".utf8)),
                "history": .string(Self.describe(options(of: name)?.history ?? .keepAll)),
            ]
            if let format = options(of: name)?.format {
                entry["declared"] = StudioJSON.version(format.current.major, format.current.minor)
            }
            collections.append(.dictionary(entry))
        }
        let retention = store.configuration.changeRetention
        var answer: PropertyList.Dictionary = [
            "store": .dictionary(await storeFacts()), "collections": .array(collections),
            "changes": .dictionary([
                "first": first, "last": StudioJSON.int(last),
                "maximumCount": retention.maximumCount.map(StudioJSON.int) ?? .string("unlimited"),
                "maximumAgeDays": retention.maximumAge.map { .real(($0 / 86_400 * 100).rounded() / 100) }
                    ?? .string("unlimited"),
            ]),
        ]
        answer["writable"] = .boolean(options.allowsWrites)
        return StudioJSON.response(answer)
    }

    /// `GET api/versions/{C}`: how many documents of `collection` sit at each format version, their bytes, and
    /// the declared format (what a bulk upgrade would touch: the documents below it).
    func versions(_ collection: String) async throws -> Response {
        let rows = try await catalog.rows(of: collection)
        var counts: [DocumentVersion: Int] = [:]
        var bytes = 0
        for row in rows {
            counts[row.version, default: 0] += 1
            bytes += row.size
        }
        let declared = options(of: collection)?.format?.current
        var versions: [PropertyList] = []
        for (version, count) in counts.sorted(by: { $0.key < $1.key }) {
            var entry: PropertyList.Dictionary = [
                "version": StudioJSON.version(version.major, version.minor), "count": StudioJSON.int(count),
            ]
            if let declared {
                entry["relation"] = .string(version < declared ? "older" : version == declared ? "current" : "newer")
            }
            versions.append(.dictionary(entry))
        }
        var answer: PropertyList.Dictionary = [
            "collection": .string(collection), "count": StudioJSON.int(rows.count), "bytes": StudioJSON.int(bytes),
            "versions": .array(versions),
        ]
        if let declared {
            answer["declared"] = StudioJSON.version(declared.major, declared.minor)
            answer["olderThanDeclared"] = StudioJSON.int(rows.count { $0.version < declared })
        }
        return StudioJSON.response(answer)
    }

    /// The options the store was opened with for `collection` (names compared by their bytes).
    func options(of collection: String) -> CollectionOptions? {
        store.configuration.collections[collection]
    }

    /// What the engine tells of its storage (``Hangar/DocumentStore/storageFacts()``): its name, where the store is,
    /// the sizes of the store (`false` when the engine does not tell) and of its own write-ahead log.
    func storeFacts() async -> PropertyList.Dictionary {
        let facts = await store.storageFacts()
        var answer: PropertyList.Dictionary = ["engine": .string(facts.engine)]
        if let file = facts.file { answer["path"] = .string(file) }
        if let location = facts.location { answer["location"] = .string(location) }
        answer["size"] = facts.size.map(StudioJSON.int) ?? .boolean(false)
        if let log = facts.writeAheadLogSize { answer["walSize"] = StudioJSON.int(log) }
        return answer
    }

    static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    static func describe(_ policy: HistoryPolicy) -> String {
        switch policy {
        case .keepAll: "every revision kept"
        case .keepLast(let count): "the last \(count) earlier revisions kept"
        case .keepNone: "no earlier revision kept"
        }
    }
}
