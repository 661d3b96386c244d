public import PropertyList

/// The messages of the protocol as property lists, sent as binary property lists
/// (`application/x-plist`), so dates and data stay exact. Every reader checks each field's type and throws
/// ``SyncError/Code/malformedAnswer`` (or `invalidRequest` on the server) rather than guessing.
public enum SyncWire {
    /// The media type of every request and answer body.
    public static let mediaType = "application/x-plist"

    // MARK: Encoding

    /// `value` as a binary property list.
    public static func bytes(_ value: PropertyList) throws(SyncError) -> [UInt8] {
        do {
            return try value.encoded(as: .binary)
        } catch {
            throw SyncError(.invalidRequest, "A sync message cannot be encoded: \(error)")
        }
    }

    /// A binary (or any) property list's value.
    public static func value(_ bytes: [UInt8], code: SyncError.Code = .malformedAnswer) throws(SyncError)
        -> PropertyList
    {
        do {
            return try PropertyList.decode(bytes).value
        } catch {
            throw SyncError(code, "The sync message is not a property list: \(error)")
        }
    }

    /// A checkpoint as a dictionary.
    public static func encode(_ checkpoint: SyncCheckpoint) -> PropertyList {
        var entries: PropertyList.Dictionary = [
            "storeID": .string(checkpoint.storeID), "epoch": .string(checkpoint.epoch),
            "through": .integer(.init(checkpoint.through)), "mark": .string(checkpoint.mark),
        ]
        if checkpoint.acknowledged > 0 {
            entries["acknowledged"] = .integer(.init(checkpoint.acknowledged))
            entries["acknowledgedMark"] = .string(checkpoint.acknowledgedMark)
        }
        return .dictionary(entries)
    }

    /// An item as a dictionary (`body` absent for a delete).
    public static func encode(_ item: SyncItem) -> PropertyList {
        var entry: PropertyList.Dictionary = ["key": .string(item.key), "revision": .integer(.init(item.revision))]
        if let body = item.body { entry["body"] = .data(body) } else { entry["deleted"] = .boolean(true) }
        return .dictionary(entry)
    }

    /// A batch as a dictionary.
    public static func encode(_ batch: SyncBatch) -> PropertyList {
        [
            "checkpoint": encode(batch.checkpoint), "items": .array(batch.items.map(encode)),
            "hasMore": .boolean(batch.hasMore), "snapshot": .boolean(batch.isSnapshot),
        ]
    }

    /// A push as a dictionary.
    public static func encode(_ push: SyncPush) -> PropertyList {
        let mutations: [PropertyList] = push.mutations.map { mutation in
            var entry: PropertyList.Dictionary = [
                "id": .integer(.init(mutation.id)), "key": .string(mutation.key),
                "base": .integer(.init(mutation.base)),
                "supersedes": .array(mutation.supersedes.map { .integer(.init($0)) }),
            ]
            if let body = mutation.body { entry["body"] = .data(body) } else { entry["delete"] = .boolean(true) }
            return .dictionary(entry)
        }
        return ["clientID": .string(push.clientID), "mutations": .array(mutations)]
    }

    /// A push answer (outcomes one per mutation, in order) as a dictionary.
    public static func encode(_ answer: SyncPushAnswer) -> PropertyList {
        let entries: [PropertyList] = answer.outcomes.map { outcome in
            switch outcome {
            case .applied(let revision, let current):
                var entry: PropertyList.Dictionary = ["outcome": "applied", "revision": .integer(.init(revision))]
                if let current { entry["current"] = encode(current) }
                return .dictionary(entry)
            case .conflict(let theirs, let base):
                var entry: PropertyList.Dictionary = ["outcome": "conflict", "theirs": encode(theirs)]
                if let base { entry["base"] = .data(base) }
                return .dictionary(entry)
            case .rejected(let code, let reason):
                return ["outcome": "rejected", "code": .string(code), "reason": .string(reason)]
            }
        }
        return [
            "results": .array(entries), "through": .integer(.init(answer.through)), "mark": .string(answer.mark),
        ]
    }

    // MARK: Decoding

    /// Reads fields of one dictionary, throwing `code` with what is wrong.
    struct Fields {
        let entries: PropertyList.Dictionary
        let what: String
        let code: SyncError.Code

        init(_ value: PropertyList?, _ what: String, code: SyncError.Code) throws(SyncError) {
            guard let entries = value?.dictionaryValue else { throw SyncError(code, "\(what) is not a dictionary") }
            self.entries = entries
            self.what = what
            self.code = code
        }

        func string(_ name: String) throws(SyncError) -> String {
            guard let value = entries[name]?.stringValue else { throw missing(name, "a string") }
            return value
        }

        func integer(_ name: String) throws(SyncError) -> Int {
            guard let value = entries[name]?.integerValue?.exactly(Int.self) else { throw missing(name, "an integer") }
            return value
        }

        func bool(_ name: String) -> Bool { entries[name]?.boolValue ?? false }

        func data(_ name: String) throws(SyncError) -> [UInt8]? {
            guard let value = entries[name] else { return nil }
            guard let bytes = value.dataValue else { throw missing(name, "data") }
            return bytes
        }

        func array(_ name: String) throws(SyncError) -> [PropertyList] {
            guard let value = entries[name]?.arrayValue else { throw missing(name, "an array") }
            return value
        }

        private func missing(_ name: String, _ kind: String) -> SyncError {
            SyncError(code, "\(what): \"\(name)\" is missing or not \(kind)")
        }
    }

    /// A checkpoint.
    public static func checkpoint(_ value: PropertyList?, code: SyncError.Code = .malformedAnswer) throws(SyncError)
        -> SyncCheckpoint
    {
        let fields = try Fields(value, "The checkpoint", code: code)
        let acknowledged = fields.entries["acknowledged"] == nil ? 0 : try fields.integer("acknowledged")
        return SyncCheckpoint(
            storeID: try fields.string("storeID"), epoch: try fields.string("epoch"),
            through: try fields.integer("through"), mark: try fields.string("mark"), acknowledged: acknowledged,
            acknowledgedMark: acknowledged == 0 ? "" : try fields.string("acknowledgedMark"))
    }

    /// An item.
    public static func item(_ value: PropertyList?, code: SyncError.Code = .malformedAnswer) throws(SyncError)
        -> SyncItem
    {
        let fields = try Fields(value, "An item", code: code)
        let body = try fields.data("body")
        guard body != nil || fields.bool("deleted") else {
            throw SyncError(code, "An item has neither body nor deleted")
        }
        return SyncItem(key: try fields.string("key"), revision: try fields.integer("revision"), body: body)
    }

    /// A batch.
    public static func batch(_ value: PropertyList) throws(SyncError) -> SyncBatch {
        let fields = try Fields(value, "The batch", code: .malformedAnswer)
        var items: [SyncItem] = []
        for entry in try fields.array("items") { items.append(try item(entry)) }
        return SyncBatch(
            checkpoint: try checkpoint(fields.entries["checkpoint"]), items: items, hasMore: fields.bool("hasMore"),
            isSnapshot: fields.bool("snapshot"))
    }

    /// A push, as the server reads it (``SyncError/Code/invalidRequest`` when malformed).
    public static func push(_ value: PropertyList) throws(SyncError) -> SyncPush {
        let fields = try Fields(value, "The push", code: .invalidRequest)
        var mutations: [SyncMutation] = []
        for entry in try fields.array("mutations") {
            let mutation = try Fields(entry, "A mutation", code: .invalidRequest)
            let body = try mutation.data("body")
            guard body != nil || mutation.bool("delete") else {
                throw SyncError(.invalidRequest, "A mutation has neither body nor delete")
            }
            var supersedes: [Int] = []
            for id in (mutation.entries["supersedes"]?.arrayValue ?? []) {
                guard let id = id.integerValue?.exactly(Int.self) else {
                    throw SyncError(.invalidRequest, "A mutation's supersedes holds a non-integer")
                }
                supersedes.append(id)
            }
            mutations.append(
                SyncMutation(
                    id: try mutation.integer("id"), key: try mutation.string("key"), base: try mutation.integer("base"),
                    supersedes: supersedes, body: body))
        }
        let clientID = try fields.string("clientID")
        guard !clientID.isEmpty, !clientID.contains("/") else {
            throw SyncError(.invalidRequest, "The client id must be non-empty text without \"/\"")
        }
        return SyncPush(clientID: clientID, mutations: mutations)
    }

    /// The answer to a push.
    public static func pushAnswer(_ value: PropertyList) throws(SyncError) -> SyncPushAnswer {
        let fields = try Fields(value, "The push answer", code: .malformedAnswer)
        var outcomes: [SyncOutcome] = []
        for entry in try fields.array("results") {
            let result = try Fields(entry, "A push result", code: .malformedAnswer)
            switch try result.string("outcome") {
            case "applied":
                let current = try result.entries["current"].map { value throws(SyncError) in try item(value) }
                outcomes.append(.applied(revision: try result.integer("revision"), current: current))
            case "conflict":
                outcomes.append(.conflict(theirs: try item(result.entries["theirs"]), base: try result.data("base")))
            case "rejected":
                outcomes.append(.rejected(code: try result.string("code"), reason: try result.string("reason")))
            case let other: throw SyncError(.malformedAnswer, "Unknown push outcome \"\(other)\"")
            }
        }
        return SyncPushAnswer(
            outcomes: outcomes, through: try fields.integer("through"), mark: try fields.string("mark"))
    }
}
