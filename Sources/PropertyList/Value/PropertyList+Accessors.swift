extension PropertyList {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, if this is an integer.
    public var integerValue: Integer? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The real, if this is a real.
    public var realValue: Double? {
        if case .real(let value) = self { value } else { nil }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The seconds since 2001-01-01 00:00:00 UTC, if this is a date.
    public var dateValue: Double? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The bytes, if this is data.
    public var dataValue: [UInt8]? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [PropertyList]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The entries, if this is a dictionary.
    public var dictionaryValue: Dictionary? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The object reference, if this is a keyed archive's UID.
    public var uidValue: UInt32? {
        if case .uid(let value) = self { value } else { nil }
    }

    /// The value under `key`, if this is a dictionary that has it.
    public subscript(key: String) -> PropertyList? {
        dictionaryValue?[key]
    }

    /// The element at `index`, if this is an array long enough.
    public subscript(index: Int) -> PropertyList? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
