public import PropertyList

extension PropertyList: PropertyListRepresentable {
    /// The value itself.
    public var propertyListRepresentation: PropertyList { self }

    /// The value itself; never throws.
    public init(propertyList: PropertyList) throws(HangarError) {
        self = propertyList
    }
}

extension String: PropertyListRepresentable {
    /// A `.string`.
    public var propertyListRepresentation: PropertyList { .string(self) }

    /// Reads a `.string`.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .string(let value) = propertyList else {
            throw .typeMismatch(expected: "string", found: propertyList)
        }
        self = value
    }
}

extension Bool: PropertyListRepresentable {
    /// A `.boolean`.
    public var propertyListRepresentation: PropertyList { .boolean(self) }

    /// Reads a `.boolean`.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .boolean(let value) = propertyList else {
            throw .typeMismatch(expected: "boolean", found: propertyList)
        }
        self = value
    }
}

extension Double: PropertyListRepresentable {
    /// A `.real`.
    public var propertyListRepresentation: PropertyList { .real(self) }

    /// Reads a `.real`, or an `.integer` that a `Double` holds exactly.
    public init(propertyList: PropertyList) throws(HangarError) {
        switch propertyList {
        case .real(let value):
            self = value
        case .integer(let integer):
            let exact =
                integer.int64Value.flatMap { Double(exactly: $0) }
                ?? integer.uint64Value.flatMap { Double(exactly: $0) }
            guard let exact else { throw .outOfRange(propertyList, for: Double.self) }
            self = exact
        default:
            throw .typeMismatch(expected: "real", found: propertyList)
        }
    }
}

extension Float: PropertyListRepresentable {
    /// A `.real`.
    public var propertyListRepresentation: PropertyList { .real(Double(self)) }

    /// Reads what `Double` reads, rounded to the nearest `Float`; a finite value beyond `Float`'s range is an error.
    public init(propertyList: PropertyList) throws(HangarError) {
        let value = try Double(propertyList: propertyList)
        guard !value.isFinite || value.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            throw .outOfRange(propertyList, for: Float.self)
        }
        self = Float(value)
    }
}

extension PropertyListRepresentable where Self: FixedWidthInteger {
    /// An `.integer`. Every integer type of 64 bits or fewer fits.
    public var propertyListRepresentation: PropertyList {
        Self.isSigned
            ? .integer(PropertyList.Integer(Int64(truncatingIfNeeded: self)))
            : .integer(PropertyList.Integer(UInt64(truncatingIfNeeded: self)))
    }

    /// Reads an `.integer` that `Self` holds exactly; any other value is an out-of-range error, never a trap.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .integer(let integer) = propertyList else {
            throw .typeMismatch(expected: "integer", found: propertyList)
        }
        guard let value = integer.exactly(Self.self) else { throw .outOfRange(propertyList, for: Self.self) }
        self = value
    }
}

extension Int: PropertyListRepresentable {}
extension Int8: PropertyListRepresentable {}
extension Int16: PropertyListRepresentable {}
extension Int32: PropertyListRepresentable {}
extension Int64: PropertyListRepresentable {}
extension UInt: PropertyListRepresentable {}
extension UInt8: PropertyListRepresentable {}
extension UInt16: PropertyListRepresentable {}
extension UInt32: PropertyListRepresentable {}
extension UInt64: PropertyListRepresentable {}
