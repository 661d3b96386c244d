public import PropertyList

/// Builds a dictionary value field by field; setting `nil` removes the key, so optional fields vanish.
///
/// ```swift
/// var writer = DictionaryWriter(super.propertyListRepresentation)   // a subclass extends its superclass
/// writer.set(Key.aerotowLaunchCount, aerotowLaunchCount)
/// writer.set(Key.nickname, nickname)                                 // nil: no "nickname" key
/// return writer.propertyList
/// ```
public struct DictionaryWriter: Sendable {
    /// The entries written so far.
    public var entries: PropertyList.Dictionary

    /// An empty dictionary.
    public init() {
        entries = [:]
    }

    /// Starts from `base`'s entries when it is a dictionary, from nothing otherwise.
    public init(_ base: PropertyList) {
        entries = base.dictionaryValue ?? [:]
    }

    /// The dictionary written.
    public var propertyList: PropertyList {
        .dictionary(entries)
    }

    /// The raw value under `key`; assigning `nil` removes it.
    public subscript(key: String) -> PropertyList? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// Writes `value` under `key` (with its class tag if it is a registered class), or removes `key` for `nil`.
    public mutating func set<T: PropertyListRepresentable>(_ key: String, _ value: T?) {
        entries[key] = value.map { ModelCoding.encode($0) }
    }

    /// Writes `bytes` under `key` as `.data`, or removes `key` for `nil`.
    public mutating func setBytes(_ key: String, _ bytes: [UInt8]?) {
        entries[key] = bytes.map { .data($0) }
    }
}

/// The same writes keyed by a `String`-backed enum.
extension DictionaryWriter {
    /// The raw value under `key`; assigning `nil` removes it.
    public subscript(key: some RawRepresentable<String>) -> PropertyList? {
        get { entries[key.rawValue] }
        set { entries[key.rawValue] = newValue }
    }

    /// Writes `value` under `key` (with its class tag if it is a registered class), or removes `key` for `nil`.
    public mutating func set<T: PropertyListRepresentable>(_ key: some RawRepresentable<String>, _ value: T?) {
        set(key.rawValue, value)
    }

    /// Writes `bytes` under `key` as `.data`, or removes `key` for `nil`.
    public mutating func setBytes(_ key: some RawRepresentable<String>, _ bytes: [UInt8]?) {
        setBytes(key.rawValue, bytes)
    }
}
