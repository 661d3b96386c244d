public import PropertyList

/// A model read field by field through a ``DictionaryReader``: a typed load reads it straight from the stored
/// bytes, decoding only the fields it asks for, where an ``PropertyListRepresentable/init(propertyList:)`` model
/// is handed the whole decoded tree.
///
/// Conform and write ``init(reader:)`` in place of `init(propertyList:)`, which this protocol provides (reading
/// a dictionary value through the same initializer), so both paths run the same code and give the same model
/// or the same error:
///
/// ```swift
/// struct Pilot: DictionaryReadable {
///     init(reader: DictionaryReader) throws(HangarError) {
///         name = try reader.read(Key.name)
///         airplanes = try reader.read(Key.airplanes)      // [Airplane]: lazily too, if Airplane conforms
///     }
///     var propertyListRepresentation: PropertyList { … }
/// }
/// ```
///
/// Anything the reader hands out whole (``DictionaryReader/entries``, ``DictionaryReader/unknownEntries(_:)``,
/// a subscript's raw value, a value of a type that is not `DictionaryReadable`) is decoded when asked for.
public protocol DictionaryReadable: PropertyListRepresentable {
    /// Reads a model from the fields of a dictionary, throwing a ``HangarError`` (never trapping) on bad input.
    init(reader: DictionaryReader) throws(HangarError)
}

extension DictionaryReadable {
    /// Reads `propertyList`, which must be a dictionary, through ``init(reader:)``.
    public init(propertyList: PropertyList) throws(HangarError) {
        try self.init(reader: DictionaryReader(propertyList))
    }
}

/// One object of a checked binary property list, read on demand (``BinaryPropertyListMap``). At a document's
/// top level the envelope's version keys are hidden, as ``DocumentFormat/open(_:name:observer:)`` removes them.
struct LazyValue: Sendable {
    let map: BinaryPropertyListMap
    let object: Int
    var hidesVersionKeys = false

    var kind: BinaryPropertyListMap.Kind { map.kind(of: object) }

    /// The value as the decoded tree holds it (without the hidden keys).
    func materialized() throws(HangarError) -> PropertyList {
        let value: PropertyList
        do {
            value = try map.value(of: object)
        } catch {
            // Unreachable: the map checked every object it can reach when it was made.
            throw HangarError(.undecodable, "A checked binary property list could not be read again", underlying: error)
        }
        guard hidesVersionKeys, case .dictionary(var entries) = value else { return value }
        entries[DocumentFormat.majorKey] = nil
        entries[DocumentFormat.minorKey] = nil
        return .dictionary(entries)
    }

    /// The value under `key` of this dictionary, if present.
    func child(_ key: String) -> LazyValue? {
        if hidesVersionKeys, key == DocumentFormat.majorKey || key == DocumentFormat.minorKey { return nil }
        return map.lookup(key, in: object).map { LazyValue(map: map, object: $0) }
    }
}

/// The types a lazy value is read into without decoding it whole first.
protocol LazilyReadable {
    /// Reads `value`, known to be of the container kind this type reads; errors are at paths from `value`.
    static func read(lazy value: LazyValue) throws(HangarError) -> Self
}

extension Array: LazilyReadable where Element: PropertyListRepresentable {
    /// As ``init(propertyList:)``, element by element.
    static func read(lazy value: LazyValue) throws(HangarError) -> Array {
        guard value.kind == .array else { return try Array(propertyList: value.materialized()) }
        let elements = value.map.elements(of: value.object)
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(HangarError) {
                result.append(
                    try ModelCoding.decode(Element.self, from: LazyValue(map: value.map, object: element), at: .root))
            } catch {
                throw error.rebased(onto: ModelPath.root.appending(index: index))
            }
        }
        return result
    }
}

extension ModelCoding {
    /// Reads a `T` from a lazy value at `path`: the same model or error as ``decode(_:from:at:)`` of its
    /// materialized value. Scalars, class-tagged dictionaries and types that read only trees are materialized.
    static func decode<T: PropertyListRepresentable>(
        _: T.Type, from value: LazyValue, at path: ModelPath
    ) throws(HangarError) -> T {
        // A recording trace sees the same reads on the decoded tree, where it follows every step.
        if ModelReadTrace.recorder != nil { return try decode(T.self, from: value.materialized(), at: path) }
        let kind = value.kind
        if kind == .dictionary, let readable = T.self as? any DictionaryReadable.Type,
            !(T.self is AnyObject.Type && value.child(classKey) != nil)
        {
            do {
                return try lazyModel(readable, from: value)
            } catch {
                throw error.rebased(onto: path)
            }
        }
        if kind == .array, let readable = T.self as? any LazilyReadable.Type {
            do {
                return try lazyContainer(readable, from: value)
            } catch {
                throw error.rebased(onto: path)
            }
        }
        return try decode(T.self, from: value.materialized(), at: path)
    }

    private static func lazyModel<T, R: DictionaryReadable>(_: R.Type, from value: LazyValue) throws(HangarError) -> T {
        let model = try R(reader: DictionaryReader(lazy: value, at: .root))
        guard let model = model as? T else {
            throw HangarError(.invalidValue, "\(R.self) read as a model that is not a \(T.self)")  // Unreachable.
        }
        return model
    }

    private static func lazyContainer<T, R: LazilyReadable>(_: R.Type, from value: LazyValue) throws(HangarError) -> T {
        guard let container = try R.read(lazy: value) as? T else {
            throw HangarError(.invalidValue, "\(R.self) read as a value that is not a \(T.self)")  // Unreachable.
        }
        return container
    }
}

extension ClassRegistry {
    /// Reads a `T` from a lazy value with this registry, as ``decode(_:from:)`` reads its materialized value.
    func decode<T: PropertyListRepresentable>(_ type: T.Type, lazy value: LazyValue) throws(HangarError) -> T {
        try withCurrent { () throws(HangarError) in try ModelCoding.decode(T.self, from: value, at: .root) }
    }
}
