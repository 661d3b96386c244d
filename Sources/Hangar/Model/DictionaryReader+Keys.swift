public import PropertyList

/// The same reads keyed by a `String`-backed enum, so each key is spelled once and checked by the compiler.
extension DictionaryReader {
    /// The raw value under `key`, if present.
    public subscript(key: some RawRepresentable<String>) -> PropertyList? {
        self[key.rawValue]
    }

    /// True when `key` is present.
    public func contains(_ key: some RawRepresentable<String>) -> Bool {
        contains(key.rawValue)
    }

    /// The value under `key` as a `T`; an absent key is a ``HangarError/Code/missingKey`` error.
    public func read<T: PropertyListRepresentable>(
        _ key: some RawRepresentable<String>, as type: T.Type = T.self
    ) throws(HangarError) -> T {
        try read(key.rawValue, as: type)
    }

    /// The value under `key` as a `T`, or `nil` when the key is absent. A value of the wrong kind is an error.
    public func readIfPresent<T: PropertyListRepresentable>(
        _ key: some RawRepresentable<String>, as type: T.Type = T.self
    ) throws(HangarError) -> T? {
        try readIfPresent(key.rawValue, as: type)
    }

    /// The bytes of the `.data` value under `key`.
    public func readBytes(_ key: some RawRepresentable<String>) throws(HangarError) -> [UInt8] {
        try readBytes(key.rawValue)
    }

    /// The bytes of the `.data` value under `key`, or `nil` when the key is absent.
    public func readBytesIfPresent(_ key: some RawRepresentable<String>) throws(HangarError) -> [UInt8]? {
        try readBytesIfPresent(key.rawValue)
    }

    /// A reader over the dictionary under `key`.
    public func nested(_ key: some RawRepresentable<String>) throws(HangarError) -> DictionaryReader {
        try nested(key.rawValue)
    }

    /// A reader over the dictionary under `key`, or `nil` when the key is absent.
    public func nestedIfPresent(_ key: some RawRepresentable<String>) throws(HangarError) -> DictionaryReader? {
        try nestedIfPresent(key.rawValue)
    }
}
