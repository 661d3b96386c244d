import PropertyList

struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let entries: PropertyList.Dictionary
    let path: ModelPath

    var codingPath: [any CodingKey] { path.codingPath }
    var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        ModelReadTrace.recorder?.asked(
            key.stringValue, at: path, required: false, kinds: nil, found: entries[key.stringValue])
        return entries[key.stringValue] != nil
    }

    private func value(_ key: Key) throws(HangarError) -> PropertyList {
        ModelReadTrace.recorder?.asked(
            key.stringValue, at: path, required: true, kinds: nil, found: entries[key.stringValue])
        guard let value = entries[key.stringValue] else { throw .missingKey(key.stringValue, at: path) }
        return value
    }

    private func scalar<T: PropertyListRepresentable>(_: T.Type, _ key: Key) throws -> T {
        try decoder.scalar(T.self, from: value(key), at: path.appending(key: key.stringValue))
    }

    /// Property lists have no null: a present value is never nil (an absent key is what `nil` looks like).
    func decodeNil(forKey key: Key) throws -> Bool {
        _ = try value(key)
        return false
    }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try scalar(Bool.self, key) }
    func decode(_: String.Type, forKey key: Key) throws -> String { try scalar(String.self, key) }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try scalar(Double.self, key) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try scalar(Float.self, key) }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try scalar(Int.self, key) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(Int8.self, key) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(Int16.self, key) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(Int32.self, key) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(Int64.self, key) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try scalar(UInt.self, key) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(UInt8.self, key) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(UInt16.self, key) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(UInt32.self, key) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(UInt64.self, key) }

    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(T.self, from: value(key), at: path.appending(key: key.stringValue))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nestedDecoder(key.stringValue).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try nestedDecoder(key.stringValue).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try nestedDecoder("super") }
    func superDecoder(forKey key: Key) throws -> any Decoder { try nestedDecoder(key.stringValue) }

    private func nestedDecoder(_ key: String) throws(HangarError) -> ValueDecoder {
        guard let value = entries[key] else { throw .missingKey(key, at: path) }
        return ValueDecoder(value: value, path: path.appending(key: key), userInfo: decoder.options)
    }
}

struct UnkeyedValueDecodingContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [PropertyList]
    let path: ModelPath
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [PropertyList], path: ModelPath) {
        self.decoder = decoder
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element and its path; reading past the end is an error, not a trap.
    private mutating func next() throws(HangarError) -> (PropertyList, ModelPath) {
        guard elements.indices.contains(currentIndex) else {
            throw HangarError(.missingKey, "expected more than \(elements.count) elements", at: path)
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path.appending(index: currentIndex))
    }

    private mutating func scalar<T: PropertyListRepresentable>(_: T.Type) throws -> T {
        let (value, path) = try next()
        return try decoder.scalar(T.self, from: value, at: path)
    }

    /// Property lists have no null: an element is never nil.
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw HangarError(.missingKey, "expected more than \(elements.count) elements", at: path)
        }
        return false
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try scalar(Bool.self) }
    mutating func decode(_: String.Type) throws -> String { try scalar(String.self) }
    mutating func decode(_: Double.Type) throws -> Double { try scalar(Double.self) }
    mutating func decode(_: Float.Type) throws -> Float { try scalar(Float.self) }
    mutating func decode(_: Int.Type) throws -> Int { try scalar(Int.self) }
    mutating func decode(_: Int8.Type) throws -> Int8 { try scalar(Int8.self) }
    mutating func decode(_: Int16.Type) throws -> Int16 { try scalar(Int16.self) }
    mutating func decode(_: Int32.Type) throws -> Int32 { try scalar(Int32.self) }
    mutating func decode(_: Int64.Type) throws -> Int64 { try scalar(Int64.self) }
    mutating func decode(_: UInt.Type) throws -> UInt { try scalar(UInt.self) }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try scalar(UInt8.self) }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try scalar(UInt16.self) }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try scalar(UInt32.self) }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try scalar(UInt64.self) }

    mutating func decode<T: Decodable>(_: T.Type) throws -> T {
        let (value, path) = try next()
        return try decoder.unbox(T.self, from: value, at: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nestedDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nestedDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try nestedDecoder() }

    private mutating func nestedDecoder() throws(HangarError) -> ValueDecoder {
        let (value, path) = try next()
        return ValueDecoder(value: value, path: path, userInfo: decoder.options)
    }
}
