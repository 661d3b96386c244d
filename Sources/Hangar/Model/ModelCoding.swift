import PropertyList

/// The one place where nested models are read and written, so that every container (reader, writer,
/// arrays, dictionaries, the Codable bridge) gets class tags and error paths the same way.
enum ModelCoding {
    /// The dictionary key that holds a registered class's tag.
    static let classKey = "class"

    /// Reads a `T` from `value`, found at `path`. A class-typed `T` whose dictionary carries a `"class"` tag
    /// is looked up in the current registry's allow-list for `T` before anything is constructed.
    static func decode<T: PropertyListRepresentable>(
        _: T.Type, from value: PropertyList, at path: ModelPath
    ) throws(HangarError) -> T {
        do throws(HangarError) {
            if let trace = ModelReadTrace.recorder { return try traced(T.self, from: value, trace: trace) }
            if case .dictionary(let entries) = value, let tag = entries[classKey], T.self is AnyObject.Type {
                guard case .string(let tag) = tag else {
                    throw HangarError.typeMismatch(
                        expected: "string", found: tag, at: ModelPath.root.appending(key: classKey))
                }
                return try ClassRegistry.current.instantiate(T.self, tag: tag, from: value)
            }
            return try T(propertyList: value)
        } catch {
            throw error.rebased(onto: path)
        }
    }

    /// ``decode(_:from:at:)`` while a ``ModelReadTrace`` records: the tags allowed where a class is read, a raw
    /// value taken whole, and the fields of a tagged value under its tag.
    private static func traced<T: PropertyListRepresentable>(
        _: T.Type, from value: PropertyList, trace: ModelReadTrace
    ) throws(HangarError) -> T {
        if T.self == PropertyList.self { trace.tookWhole(value) }
        let decodeAsIs = { () throws(HangarError) -> T in
            try trace.decoding(value) { () throws(HangarError) in try T(propertyList: value) }
        }
        guard T.self is AnyObject.Type else { return try decodeAsIs() }
        trace.polymorphic(allowedTags: ClassRegistry.current.allowedTags(for: T.self), found: value)
        guard case .dictionary(let entries) = value, let tag = entries[classKey] else { return try decodeAsIs() }
        guard case .string(let tag) = tag else {
            throw HangarError.typeMismatch(expected: "string", found: tag, at: ModelPath.root.appending(key: classKey))
        }
        return try trace.within([.tag(ExactString(tag))]) { () throws(HangarError) in
            try trace.decoding(value) { () throws(HangarError) in
                try ClassRegistry.current.instantiate(T.self, tag: tag, from: value)
            }
        }
    }

    /// The representation of `value`, with its class tag added when its dynamic type is registered.
    static func encode<T: PropertyListRepresentable>(_ value: T) -> PropertyList {
        var representation = value.propertyListRepresentation
        guard type(of: value) is AnyObject.Type, case .dictionary(var entries) = representation,
            let tag = ClassRegistry.current.tag(for: type(of: value))
        else { return representation }
        representation = .boolean(false)  // Drops the second reference, so `entries` is mutated in place.
        entries[classKey] = .string(tag)
        return .dictionary(entries)
    }
}
