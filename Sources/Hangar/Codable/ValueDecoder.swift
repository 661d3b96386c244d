import PropertyList

/// The `Decoder` the bridge hands to `init(from:)`: one per nested value, knowing its path.
/// It is its own single-value container.
final class ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: PropertyList
    let path: ModelPath
    let options: [CodingUserInfoKey: any Sendable]

    init(value: PropertyList, path: ModelPath, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.path = path
        self.options = userInfo
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { options }

    func container<Key: CodingKey>(keyedBy _: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let entries) = value else {
            throw HangarError.typeMismatch(expected: "dictionary", found: value, at: path)
        }
        return KeyedDecodingContainer(KeyedValueDecodingContainer(decoder: self, entries: entries, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw HangarError.typeMismatch(expected: "array", found: value, at: path)
        }
        return UnkeyedValueDecodingContainer(decoder: self, elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Reads a nested `T` from `value`, found at `path` (with `reusing` as its decoder when it already is one).
    func unbox<T: Decodable>(
        _: T.Type, from value: PropertyList, at path: ModelPath, reusing decoder: ValueDecoder? = nil
    ) throws -> T {
        if let representable = T.self as? any PropertyListRepresentable.Type {
            return try Self.decode(representable, as: T.self, from: value, at: path)
        }
        do {
            return try T(from: decoder ?? ValueDecoder(value: value, path: path, userInfo: options))
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(bridging: error, at: path)
        }
    }

    private static func decode<R: PropertyListRepresentable, T>(
        _: R.Type, as _: T.Type, from value: PropertyList, at path: ModelPath
    ) throws(HangarError) -> T {
        // A model read through the bridge reads from its own root: a recording trace is told where that is.
        let decoded =
            if let trace = ModelReadTrace.recorder {
                try trace.within(ModelReadTrace.steps(path)) { () throws(HangarError) in
                    try ModelCoding.decode(R.self, from: value, at: path)
                }
            } else {
                try ModelCoding.decode(R.self, from: value, at: path)
            }
        guard let result = decoded as? T else {
            // Unreachable: `R` is `T`, seen through a cast.
            throw HangarError(.invalidValue, "\(R.self) is not \(T.self)", at: path)
        }
        return result
    }

    /// A scalar `T` from `value`, found at `path`.
    func scalar<T: PropertyListRepresentable>(_: T.Type, from value: PropertyList, at path: ModelPath) throws -> T {
        try ModelCoding.decode(T.self, from: value, at: path)
    }

    // MARK: SingleValueDecodingContainer

    /// Property lists have no null: a value is never nil.
    func decodeNil() -> Bool { false }
    func decode(_: Bool.Type) throws -> Bool { try scalar(Bool.self, from: value, at: path) }
    func decode(_: String.Type) throws -> String { try scalar(String.self, from: value, at: path) }
    func decode(_: Double.Type) throws -> Double { try scalar(Double.self, from: value, at: path) }
    func decode(_: Float.Type) throws -> Float { try scalar(Float.self, from: value, at: path) }
    func decode(_: Int.Type) throws -> Int { try scalar(Int.self, from: value, at: path) }
    func decode(_: Int8.Type) throws -> Int8 { try scalar(Int8.self, from: value, at: path) }
    func decode(_: Int16.Type) throws -> Int16 { try scalar(Int16.self, from: value, at: path) }
    func decode(_: Int32.Type) throws -> Int32 { try scalar(Int32.self, from: value, at: path) }
    func decode(_: Int64.Type) throws -> Int64 { try scalar(Int64.self, from: value, at: path) }
    func decode(_: UInt.Type) throws -> UInt { try scalar(UInt.self, from: value, at: path) }
    func decode(_: UInt8.Type) throws -> UInt8 { try scalar(UInt8.self, from: value, at: path) }
    func decode(_: UInt16.Type) throws -> UInt16 { try scalar(UInt16.self, from: value, at: path) }
    func decode(_: UInt32.Type) throws -> UInt32 { try scalar(UInt32.self, from: value, at: path) }
    func decode(_: UInt64.Type) throws -> UInt64 { try scalar(UInt64.self, from: value, at: path) }
    func decode<T: Decodable>(_: T.Type) throws -> T { try unbox(T.self, from: value, at: path, reusing: self) }
}
