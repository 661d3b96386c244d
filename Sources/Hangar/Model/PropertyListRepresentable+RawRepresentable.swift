public import PropertyList

extension PropertyListRepresentable where Self: RawRepresentable, RawValue: PropertyListRepresentable {
    /// The raw value's representation. An `enum Engine: String, PropertyListRepresentable {}` needs no code.
    public var propertyListRepresentation: PropertyList { rawValue.propertyListRepresentation }

    /// Reads the raw value; one that names no case is an ``HangarError/Code/invalidValue`` error.
    public init(propertyList: PropertyList) throws(HangarError) {
        let raw = try RawValue(propertyList: propertyList)
        guard let value = Self(rawValue: raw) else { throw .invalidValue(propertyList, for: Self.self) }
        self = value
    }
}
