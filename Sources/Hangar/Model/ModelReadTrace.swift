import Foundation
import PropertyList
import Synchronization

/// What a model's reader asked for while it read values: each key it required or took if present, the kind of
/// value it expected, the class tags allowed where it read a class. The Migration Kit (`HangarTesting`) records a
/// format's shape with it; nothing else pays for it (a read checks one atomic counter when no trace is active).
///
/// ```swift
/// let (pilot, reads) = try ModelReadTrace.recording { try registry.decode(Pilot.self, from: value) }
/// ```
///
/// Reads through ``DictionaryReader``, arrays, dictionaries, class tags and the Codable bridge are recorded. A
/// model that takes raw values (a ``PropertyList`` field, ``DictionaryReader/entries``, a subscript) is recorded
/// as reading that value whole (``ModelRead/isRaw``): what lies inside is known only from the values read.
public final class ModelReadTrace: Sendable {
    /// One step of a recorded path.
    public enum Step: Sendable, Hashable {
        /// The value under a dictionary key.
        case key(ExactString)
        /// Any element of an array.
        case element
        /// The value under any key of a dictionary read as a map (`[String: Value]`).
        case anyKey
        /// The fields of a value read as the class registered under this tag.
        case tag(ExactString)
    }

    private struct State {
        var stack: [Step] = []
        var reads: [ModelRead] = []
        /// The dictionaries the model took whole, and where: a reader made over one later reads from there.
        var wholeDictionaries: [PropertyList: [Step]] = [:]
        /// The values being decoded, innermost last: a reader over one of them reads where it is being decoded.
        var decoding: [PropertyList] = []
    }

    private let state = Mutex(State())
    /// How many traces are recording anywhere: reads look for one only when some is.
    private static let active = Atomic<Int>(0)
    @TaskLocal private static var current: ModelReadTrace?

    private init() {}

    /// Runs `body`, recording every read it makes on this task; returns its result and the reads, in order.
    public static func recording<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> (result: Result, reads: [ModelRead]) {
        let trace = ModelReadTrace()
        active.add(1, ordering: .relaxed)
        defer { active.subtract(1, ordering: .relaxed) }
        let outcome = $current.withValue(trace) { Swift.Result(catching: body) }
        let reads = trace.state.withLock { $0.reads }
        return (try outcome.get(), reads)
    }

    /// The trace recording on this task, if any.
    static var recorder: ModelReadTrace? {
        guard active.load(ordering: .relaxed) > 0 else { return nil }
        return current
    }

    /// Runs `body` with `steps` appended to the path of the reads it makes.
    func within<Result, Failure: Error>(_ steps: [Step], _ body: () throws(Failure) -> Result) throws(Failure) -> Result
    {
        state.withLock { $0.stack.append(contentsOf: steps) }
        defer { state.withLock { $0.stack.removeLast(steps.count) } }
        return try body()
    }

    /// Runs `body` with the path to `key` of the dictionary at `path` appended (see
    /// ``asked(_:at:base:required:kinds:found:raw:)``); from `base` instead of the current path, when given.
    func within<Result, Failure: Error>(
        key: String, at path: ModelPath, base: [Step]? = nil, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let steps = Self.steps(path) + [.key(ExactString(key))]
        guard let base else { return try within(steps, body) }
        let saved = state.withLock { state in
            defer { state.stack = base + steps }
            return state.stack
        }
        defer { state.withLock { $0.stack = saved } }
        return try body()
    }

    /// Where a dictionary the model took whole sits, if it took `value` so and is not decoding it now.
    func base(of value: PropertyList) -> [Step]? {
        guard case .dictionary = value else { return nil }
        return state.withLock { state in
            state.decoding.last == value ? nil : state.wholeDictionaries[value]
        }
    }

    /// Runs `body`, which decodes `value`.
    func decoding<Result, Failure: Error>(_ value: PropertyList, _ body: () throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        state.withLock { $0.decoding.append(value) }
        defer { state.withLock { _ = $0.decoding.popLast() } }
        return try body()
    }

    /// Records a read of `key` in the dictionary at `path` (relative to the innermost value being read, or to
    /// `base`, where a dictionary taken whole sits).
    func asked(
        _ key: String, at path: ModelPath, base: [Step]? = nil, required: Bool, kinds: [String]?,
        found: PropertyList?, raw: Bool = false
    ) {
        state.withLock { state in
            let steps = (base ?? state.stack) + Self.steps(path) + [.key(ExactString(key))]
            state.reads.append(
                ModelRead(
                    path: steps, isRequired: required, expectedKinds: kinds, foundKind: found?.kindName, isRaw: raw,
                    allowedTags: nil))
        }
    }

    /// Records that the value being read is a class, allowing `tags` (each with the tag it reads as).
    func polymorphic(allowedTags tags: [(tag: String, readsAs: String)], found: PropertyList) {
        state.withLock { state in
            let allowed = tags.map { ModelRead.Tag(tag: ExactString($0.tag), readsAs: ExactString($0.readsAs)) }
            state.reads.append(
                ModelRead(
                    path: state.stack, isRequired: true, expectedKinds: ["dictionary"], foundKind: found.kindName,
                    isRaw: false, allowedTags: allowed))
        }
    }

    /// Records that the model took the value at `path` whole (a ``PropertyList``-typed read, a reader's entries),
    /// and where each dictionary inside it sits.
    func tookWhole(_ value: PropertyList, at path: ModelPath = .root, base: [Step]? = nil) {
        state.withLock { state in
            let steps = (base ?? state.stack) + Self.steps(path)
            var budget = 10_000  // A trace follows the samples, not a hostile value: bounded all the same.
            Self.remember(value, at: steps, in: &state.wholeDictionaries, budget: &budget)
            state.reads.append(
                ModelRead(
                    path: steps, isRequired: true, expectedKinds: nil,
                    foundKind: value.kindName, isRaw: true,
                    allowedTags: nil))
        }
    }

    private static func remember(
        _ value: PropertyList, at steps: [Step], in places: inout [PropertyList: [Step]], budget: inout Int
    ) {
        guard budget > 0, steps.count < 64 else { return }
        budget -= 1
        switch value {
        case .dictionary(let fields):
            if places[value] == nil { places[value] = steps }
            for (key, field) in fields {
                remember(field, at: steps + [.key(ExactString(key))], in: &places, budget: &budget)
            }
        case .array(let elements):
            for element in elements { remember(element, at: steps + [.element], in: &places, budget: &budget) }
        default:
            break
        }
    }

    static func steps(_ path: ModelPath) -> [Step] {
        path.components.map { component in
            switch component {
            case .key(let key): .key(ExactString(key))
            case .index: .element
            }
        }
    }

    /// The kinds a standard type reads, or `nil` for a model or a raw value (known only from the values read).
    static func kinds(of type: Any.Type) -> [String]? {
        switch type {
        case is String.Type: ["string"]
        case is Bool.Type: ["boolean"]
        case is Double.Type, is Float.Type: ["integer", "real"]
        case is any FixedWidthInteger.Type: ["integer"]
        case is Date.Type: ["date"]
        case is Data.Type: ["data"]
        case is URL.Type, is UUID.Type: ["string"]
        case is any TracedContainer.Type: (type as? any TracedContainer.Type)?.tracedKinds
        default: nil
        }
    }
}

/// A standard type whose kinds a trace names (arrays, dictionaries, dates, data).
protocol TracedContainer {
    static var tracedKinds: [String] { get }
}

extension Array: TracedContainer where Element: PropertyListRepresentable {
    static var tracedKinds: [String] { ["array"] }
}

extension Dictionary: TracedContainer where Key == String, Value: PropertyListRepresentable {
    static var tracedKinds: [String] { ["dictionary"] }
}

/// One read a ``ModelReadTrace`` recorded.
public struct ModelRead: Sendable {
    /// A class tag allowed where a class is read, and the tag it reads as (itself, or the tag an alias names).
    public struct Tag: Sendable, Hashable {
        /// The tag a document may carry.
        public let tag: ExactString
        /// The registered tag it builds: `tag` itself, unless `tag` is an alias.
        public let readsAs: ExactString
    }

    /// Where the value read sits, from the top of the value the trace was recording.
    public let path: [ModelReadTrace.Step]
    /// Whether its absence is an error (`read`), or tolerated (`readIfPresent`, `contains`).
    public let isRequired: Bool
    /// The kinds of value the reader accepts there, when the type says (`nil` for a model or a raw value).
    public let expectedKinds: [String]?
    /// The kind of the value that was there, `nil` when the key was absent.
    public let foundKind: String?
    /// Whether the model took the value whole, without reading into it.
    public let isRaw: Bool
    /// The tags allowed there, when a class is read there.
    public let allowedTags: [Tag]?
}
