public import PropertyList

extension Array: PropertyListRepresentable where Element: PropertyListRepresentable {
    /// An `.array`; class elements carry their registered tags.
    ///
    /// `[UInt8]` is an array of integers here: use `Data`, or ``DictionaryReader/readBytes(_:)``, for `.data`.
    public var propertyListRepresentation: PropertyList {
        .array(map { ModelCoding.encode($0) })
    }

    /// Reads an `.array`, each element polymorphically, with its index in any error's path.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .array(let elements) = propertyList else {
            throw .typeMismatch(expected: "array", found: propertyList)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        let trace = ModelReadTrace.recorder
        for (index, element) in elements.enumerated() {
            do throws(HangarError) {
                if let trace {
                    result.append(
                        try trace.within([.element]) { () throws(HangarError) in
                            try ModelCoding.decode(Element.self, from: element, at: .root)
                        })
                } else {
                    result.append(try ModelCoding.decode(Element.self, from: element, at: .root))
                }
            } catch {
                throw error.rebased(onto: ModelPath.root.appending(index: index))  // A step is an allocation.
            }
        }
        self = result
    }
}

extension Dictionary: PropertyListRepresentable where Key == String, Value: PropertyListRepresentable {
    /// A `.dictionary`; class values carry their registered tags.
    public var propertyListRepresentation: PropertyList {
        .dictionary(PropertyList.Dictionary(uniqueKeysWithValues: lazy.map { ($0.key, ModelCoding.encode($0.value)) }))
    }

    /// Reads a `.dictionary`, each value polymorphically, with its key in any error's path.
    ///
    /// Swift's `String` keys are equal when canonically equivalent, so a value holding two such keys
    /// (`"caf\u{E9}"` and `"cafe\u{301}"`) cannot become a `[String: Value]` without losing one: that is an
    /// ``HangarError/Code/invalidValue`` error naming the second key, never a silent merge. Read such values
    /// as ``PropertyList/Dictionary``, which keeps both.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .dictionary(let entries) = propertyList else {
            throw .typeMismatch(expected: "dictionary", found: propertyList)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(entries.count)
        for (key, value) in entries {
            let path = ModelPath.root.appending(key: key)
            guard result[key] == nil else {
                throw HangarError(
                    .invalidValue,
                    "key \(key.debugDescription) is canonically equivalent to another key; a Swift dictionary would merge them",
                    at: path)
            }
            if let trace = ModelReadTrace.recorder {
                result[key] = try trace.within([.anyKey]) { () throws(HangarError) in
                    try ModelCoding.decode(Value.self, from: value, at: path)
                }
            } else {
                result[key] = try ModelCoding.decode(Value.self, from: value, at: path)
            }
        }
        self = result
    }
}
