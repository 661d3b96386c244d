public import PropertyList

/// Reads typed fields out of a dictionary value, with errors that carry the path.
///
/// `read` requires the key; `readIfPresent` returns `nil` for an absent key, but a present value of the
/// wrong kind is still an error. Keys are strings or `String`-backed enums:
///
/// ```swift
/// let reader = try DictionaryReader(propertyList)
/// name = try reader.read(Key.name)                      // String
/// nickname = try reader.readIfPresent(Key.nickname)     // String?
/// airplanes = try reader.read(Key.airplanes)            // [Airplane], each by its class tag
/// ```
public struct DictionaryReader: Sendable {
    /// A decoded dictionary, or one object of stored bytes read on demand (``DictionaryReadable``).
    private enum Storage: Sendable {
        case tree(PropertyList.Dictionary)
        case lazy(LazyValue)
    }

    private let storage: Storage
    /// Where this dictionary sits in the value being read.
    public let path: ModelPath
    /// While a ``ModelReadTrace`` records: where a dictionary the model took whole sits, when a reader is made
    /// over it later (`DictionaryReader(row)` for each row of a `[PropertyList]`).
    private var tracedBase: [ModelReadTrace.Step]?

    /// The dictionary's entries, as read. A reader over stored bytes decodes them all when asked.
    public var entries: PropertyList.Dictionary {
        let entries: PropertyList.Dictionary
        switch storage {
        case .tree(let tree): entries = tree
        case .lazy(let value): entries = (try? value.materialized())?.dictionaryValue ?? [:]
        }
        ModelReadTrace.recorder?.tookWhole(.dictionary(entries), at: path, base: tracedBase)
        return entries
    }

    /// A reader over `value`, which must be a dictionary.
    public init(_ value: PropertyList) throws(HangarError) {
        try self.init(value, at: .root)
        tracedBase = ModelReadTrace.recorder?.base(of: value)
    }

    init(_ value: PropertyList, at path: ModelPath) throws(HangarError) {
        guard case .dictionary(let entries) = value else {
            throw .typeMismatch(expected: "dictionary", found: value, at: path)
        }
        storage = .tree(entries)
        self.path = path
    }

    /// A reader over a lazy dictionary (its kind checked by the caller).
    init(lazy value: LazyValue, at path: ModelPath) {
        storage = .lazy(value)
        self.path = path
    }

    /// The value under `key`: decoded, or an object of the stored bytes.
    private enum Entry {
        case tree(PropertyList)
        case lazy(LazyValue)

        func materialized() throws(HangarError) -> PropertyList {
            switch self {
            case .tree(let value): value
            case .lazy(let value): try value.materialized()
            }
        }
    }

    private func entry(_ key: String) -> Entry? {
        switch storage {
        case .tree(let entries): entries[key].map(Entry.tree)
        case .lazy(let value): value.child(key).map(Entry.lazy)
        }
    }

    private func decode<T: PropertyListRepresentable>(_: T.Type, _ entry: Entry, key: String) throws(HangarError) -> T {
        // The path is extended only for an error: a step of a path is an allocation.
        do throws(HangarError) {
            if let trace = ModelReadTrace.recorder {
                return try trace.within(key: key, at: path, base: tracedBase) { () throws(HangarError) in
                    try decode(T.self, entry)
                }
            }
            return try decode(T.self, entry)
        } catch {
            throw error.rebased(onto: path.appending(key: key))
        }
    }

    private func decode<T: PropertyListRepresentable>(_: T.Type, _ entry: Entry) throws(HangarError) -> T {
        switch entry {
        case .tree(let value): try ModelCoding.decode(T.self, from: value, at: .root)
        case .lazy(let value): try ModelCoding.decode(T.self, from: value, at: .root)
        }
    }

    /// Tells a recording ``ModelReadTrace`` that `key` was asked for.
    private func trace(_ key: String, required: Bool, kinds: @autoclosure () -> [String]?, raw: Bool = false) {
        guard let trace = ModelReadTrace.recorder else { return }
        let found = try? entry(key)?.materialized()
        trace.asked(key, at: path, base: tracedBase, required: required, kinds: kinds(), found: found, raw: raw)
        if raw, let found { trace.tookWhole(found, at: path.appending(key: key), base: tracedBase) }
    }

    /// The raw value under `key`, if present.
    public subscript(key: String) -> PropertyList? {
        trace(key, required: false, kinds: nil, raw: true)
        return try? entry(key)?.materialized()
    }

    /// True when `key` is present.
    public func contains(_ key: String) -> Bool {
        trace(key, required: false, kinds: nil)
        return entry(key) != nil
    }

    /// The value under `key` as a `T`; an absent key is a ``HangarError/Code/missingKey`` error.
    public func read<T: PropertyListRepresentable>(_ key: String, as type: T.Type = T.self) throws(HangarError) -> T {
        trace(key, required: true, kinds: ModelReadTrace.kinds(of: T.self))
        guard let entry = entry(key) else { throw .missingKey(key, at: path) }
        return try decode(T.self, entry, key: key)
    }

    /// The value under `key` as a `T`, or `nil` when the key is absent. A value of the wrong kind is an error.
    public func readIfPresent<T: PropertyListRepresentable>(
        _ key: String, as type: T.Type = T.self
    ) throws(HangarError) -> T? {
        trace(key, required: false, kinds: ModelReadTrace.kinds(of: T.self))
        guard let entry = entry(key) else { return nil }
        return try decode(T.self, entry, key: key)
    }

    /// The bytes of the `.data` value under `key`.
    public func readBytes(_ key: String) throws(HangarError) -> [UInt8] {
        trace(key, required: true, kinds: ["data"])
        guard let value = try entry(key)?.materialized() else { throw .missingKey(key, at: path) }
        guard case .data(let bytes) = value else {
            throw .typeMismatch(expected: "data", found: value, at: path.appending(key: key))
        }
        return bytes
    }

    /// The bytes of the `.data` value under `key`, or `nil` when the key is absent.
    public func readBytesIfPresent(_ key: String) throws(HangarError) -> [UInt8]? {
        guard contains(key) else { return nil }
        return try readBytes(key)
    }

    /// A reader over the dictionary under `key`, for fields grouped in a nested dictionary.
    public func nested(_ key: String) throws(HangarError) -> DictionaryReader {
        trace(key, required: true, kinds: ["dictionary"])
        var reader: DictionaryReader
        switch entry(key) {
        case nil: throw .missingKey(key, at: path)
        case .lazy(let value) where value.kind == .dictionary:
            reader = DictionaryReader(lazy: value, at: path.appending(key: key))
        case let entry?: reader = try DictionaryReader(entry.materialized(), at: path.appending(key: key))
        }
        reader.tracedBase = tracedBase  // A nested reader reads from where its parent does.
        return reader
    }

    /// A reader over the dictionary under `key`, or `nil` when the key is absent.
    public func nestedIfPresent(_ key: String) throws(HangarError) -> DictionaryReader? {
        guard contains(key) else { return nil }
        return try nested(key)
    }
}
