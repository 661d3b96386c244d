import PropertyList

struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let box: EncodedDictionary
    let path: ModelPath

    var codingPath: [any CodingKey] { path.codingPath }

    private func set(_ value: some PropertyListRepresentable, _ key: Key) {
        box.entries[key.stringValue] = .value(value.propertyListRepresentation)
    }

    /// A `nil` is an absent key.
    mutating func encodeNil(forKey key: Key) throws { box.entries[key.stringValue] = nil }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.entries[key.stringValue] = try encoder.box(value, at: path.appending(key: key.stringValue))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy _: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedDictionary()
        box.entries[key.stringValue] = .dictionary(nested)
        return KeyedEncodingContainer(
            KeyedValueEncodingContainer<NestedKey>(
                encoder: encoder, box: nested, path: path.appending(key: key.stringValue))
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        box.entries[key.stringValue] = .array(nested)
        return UnkeyedValueEncodingContainer(encoder: encoder, box: nested, path: path.appending(key: key.stringValue))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forRawKey: "super")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forRawKey: key.stringValue)
    }

    private func superEncoder(forRawKey key: String) -> any Encoder {
        let nested = ValueEncoder(path: path.appending(key: key), userInfo: encoder.options)
        box.entries[key] = .encoder(nested)
        return nested
    }
}

struct UnkeyedValueEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let box: EncodedArray
    let path: ModelPath

    var codingPath: [any CodingKey] { path.codingPath }
    var count: Int { box.elements.count }

    private func append(_ value: some PropertyListRepresentable) {
        box.elements.append(.value(value.propertyListRepresentation))
    }

    mutating func encodeNil() throws { throw encoder.nilError(at: path.appending(index: count)) }
    mutating func encode(_ value: Bool) throws { append(value) }
    mutating func encode(_ value: String) throws { append(value) }
    mutating func encode(_ value: Double) throws { append(value) }
    mutating func encode(_ value: Float) throws { append(value) }
    mutating func encode(_ value: Int) throws { append(value) }
    mutating func encode(_ value: Int8) throws { append(value) }
    mutating func encode(_ value: Int16) throws { append(value) }
    mutating func encode(_ value: Int32) throws { append(value) }
    mutating func encode(_ value: Int64) throws { append(value) }
    mutating func encode(_ value: UInt) throws { append(value) }
    mutating func encode(_ value: UInt8) throws { append(value) }
    mutating func encode(_ value: UInt16) throws { append(value) }
    mutating func encode(_ value: UInt32) throws { append(value) }
    mutating func encode(_ value: UInt64) throws { append(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.elements.append(try encoder.box(value, at: path.appending(index: count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
    {
        let nested = EncodedDictionary()
        let nestedPath = path.appending(index: count)
        box.elements.append(.dictionary(nested))
        return KeyedEncodingContainer(
            KeyedValueEncodingContainer<NestedKey>(encoder: encoder, box: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let nestedPath = path.appending(index: count)
        box.elements.append(.array(nested))
        return UnkeyedValueEncodingContainer(encoder: encoder, box: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let nested = ValueEncoder(path: path.appending(index: count), userInfo: encoder.options)
        box.elements.append(.encoder(nested))
        return nested
    }
}

struct SingleValueValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: some PropertyListRepresentable) {
        encoder.slot = .value(value.propertyListRepresentation)
    }

    mutating func encodeNil() throws { throw encoder.nilError(at: encoder.path) }
    mutating func encode(_ value: Bool) throws { set(value) }
    mutating func encode(_ value: String) throws { set(value) }
    mutating func encode(_ value: Double) throws { set(value) }
    mutating func encode(_ value: Float) throws { set(value) }
    mutating func encode(_ value: Int) throws { set(value) }
    mutating func encode(_ value: Int8) throws { set(value) }
    mutating func encode(_ value: Int16) throws { set(value) }
    mutating func encode(_ value: Int32) throws { set(value) }
    mutating func encode(_ value: Int64) throws { set(value) }
    mutating func encode(_ value: UInt) throws { set(value) }
    mutating func encode(_ value: UInt8) throws { set(value) }
    mutating func encode(_ value: UInt16) throws { set(value) }
    mutating func encode(_ value: UInt32) throws { set(value) }
    mutating func encode(_ value: UInt64) throws { set(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.slot = try encoder.box(value, at: encoder.path)
    }
}
