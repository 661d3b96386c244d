extension PropertyList: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension PropertyList: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self = .integer(Integer(value))
    }
}

extension PropertyList: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension PropertyList: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension PropertyList: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PropertyList...) {
        self = .array(elements)
    }
}

extension PropertyList: ExpressibleByDictionaryLiteral {
    /// A dictionary; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, PropertyList)...) {
        self = .dictionary(Dictionary(uniqueKeysWithValues: elements))
    }
}
