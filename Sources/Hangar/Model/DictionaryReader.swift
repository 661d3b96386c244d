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
    /// The dictionary's entries, as read.
    public let entries: PropertyList.Dictionary
    /// Where this dictionary sits in the value being read.
    public let path: ModelPath

    /// A reader over `value`, which must be a dictionary.
    public init(_ value: PropertyList) throws(HangarError) {
        try self.init(value, at: .root)
    }

    init(_ value: PropertyList, at path: ModelPath) throws(HangarError) {
        guard case .dictionary(let entries) = value else {
            throw .typeMismatch(expected: "dictionary", found: value, at: path)
        }
        self.entries = entries
        self.path = path
    }

    /// The raw value under `key`, if present.
    public subscript(key: String) -> PropertyList? {
        entries[key]
    }

    /// True when `key` is present.
    public func contains(_ key: String) -> Bool {
        entries[key] != nil
    }

    /// The value under `key` as a `T`; an absent key is a ``HangarError/Code/missingKey`` error.
    public func read<T: PropertyListRepresentable>(_ key: String, as type: T.Type = T.self) throws(HangarError) -> T {
        guard let value = entries[key] else { throw .missingKey(key, at: path) }
        return try ModelCoding.decode(T.self, from: value, at: path.appending(key: key))
    }

    /// The value under `key` as a `T`, or `nil` when the key is absent. A value of the wrong kind is an error.
    public func readIfPresent<T: PropertyListRepresentable>(
        _ key: String, as type: T.Type = T.self
    ) throws(HangarError) -> T? {
        guard let value = entries[key] else { return nil }
        return try ModelCoding.decode(T.self, from: value, at: path.appending(key: key))
    }

    /// The bytes of the `.data` value under `key`.
    public func readBytes(_ key: String) throws(HangarError) -> [UInt8] {
        guard let value = entries[key] else { throw .missingKey(key, at: path) }
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
        guard let value = entries[key] else { throw .missingKey(key, at: path) }
        return try DictionaryReader(value, at: path.appending(key: key))
    }

    /// A reader over the dictionary under `key`, or `nil` when the key is absent.
    public func nestedIfPresent(_ key: String) throws(HangarError) -> DictionaryReader? {
        guard contains(key) else { return nil }
        return try nested(key)
    }
}
