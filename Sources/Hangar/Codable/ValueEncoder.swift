import PropertyList

/// What an encoder produced: a finished value, or a container still being filled.
///
/// Containers are reference boxes because `Encoder` hands out containers that outlive the call that made them.
enum EncodedSlot {
    case value(PropertyList)
    case dictionary(EncodedDictionary)
    case array(EncodedArray)
    /// A `superEncoder()`: its value is read when the tree is finished.
    case encoder(ValueEncoder)

    func finalized() throws(HangarError) -> PropertyList {
        switch self {
        case .value(let value):
            return value
        case .dictionary(let box):
            var entries: PropertyList.Dictionary = [:]
            entries.reserveCapacity(box.entries.count)
            for (key, slot) in box.entries { entries[key] = try slot.finalized() }
            return .dictionary(entries)
        case .array(let box):
            var elements: [PropertyList] = []
            elements.reserveCapacity(box.elements.count)
            for slot in box.elements { elements.append(try slot.finalized()) }
            return .array(elements)
        case .encoder(let encoder):
            guard let slot = encoder.slot else {
                throw HangarError(.unrepresentable, "a super encoder encoded no value", at: encoder.path)
            }
            return try slot.finalized()
        }
    }
}

final class EncodedDictionary {
    var entries: [String: EncodedSlot] = [:]
}

final class EncodedArray {
    var elements: [EncodedSlot] = []
}

/// The `Encoder` the bridge hands to `encode(to:)`: one per nested value, knowing its path.
final class ValueEncoder: Encoder {
    let path: ModelPath
    let options: [CodingUserInfoKey: any Sendable]
    /// The container or value this encoder produced, once it has.
    var slot: EncodedSlot?

    init(path: ModelPath, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.path = path
        self.options = userInfo
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { options }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: EncodedDictionary
        if case .dictionary(let existing) = slot {
            box = existing
        } else {
            box = EncodedDictionary()
            slot = .dictionary(box)
        }
        return KeyedEncodingContainer(KeyedValueEncodingContainer(encoder: self, box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: EncodedArray
        if case .array(let existing) = slot {
            box = existing
        } else {
            box = EncodedArray()
            slot = .array(box)
        }
        return UnkeyedValueEncodingContainer(encoder: self, box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueValueEncodingContainer(encoder: self)
    }

    /// Encodes a nested value found at `path`.
    func box<T: Encodable>(_ value: T, at path: ModelPath) throws -> EncodedSlot {
        if let representable = value as? any PropertyListRepresentable {
            return .value(ModelCoding.encode(representable))
        }
        let encoder = ValueEncoder(path: path, userInfo: options)
        do {
            try value.encode(to: encoder)
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(bridging: error, at: path)
        }
        guard let slot = encoder.slot else {
            throw HangarError(.unrepresentable, "\(T.self) encoded no value", at: path)
        }
        return slot
    }

    func nilError(at path: ModelPath) -> HangarError {
        HangarError(.unrepresentable, "property lists have no null; leave the key out instead", at: path)
    }
}
