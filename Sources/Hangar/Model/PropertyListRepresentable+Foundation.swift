public import Foundation
public import PropertyList

extension Date: PropertyListRepresentable {
    /// A `.date` (seconds since 2001-01-01 00:00:00 UTC).
    public var propertyListRepresentation: PropertyList { .date(timeIntervalSinceReferenceDate) }

    /// Reads a `.date`.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .date(let seconds) = propertyList else {
            throw .typeMismatch(expected: "date", found: propertyList)
        }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
}

extension Data: PropertyListRepresentable {
    /// A `.data`.
    public var propertyListRepresentation: PropertyList { .data([UInt8](self)) }

    /// Reads a `.data`.
    public init(propertyList: PropertyList) throws(HangarError) {
        guard case .data(let bytes) = propertyList else {
            throw .typeMismatch(expected: "data", found: propertyList)
        }
        self.init(bytes)
    }
}

extension URL: PropertyListRepresentable {
    /// A `.string` holding the absolute string.
    public var propertyListRepresentation: PropertyList { .string(absoluteString) }

    /// Reads a `.string` that parses as a URL.
    public init(propertyList: PropertyList) throws(HangarError) {
        let string = try String(propertyList: propertyList)
        guard let url = URL(string: string) else { throw .invalidValue(propertyList, for: URL.self) }
        self = url
    }
}

extension UUID: PropertyListRepresentable {
    /// A `.string` like `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public var propertyListRepresentation: PropertyList { .string(uuidString) }

    /// Reads a `.string` that parses as a UUID.
    public init(propertyList: PropertyList) throws(HangarError) {
        let string = try String(propertyList: propertyList)
        guard let uuid = UUID(uuidString: string) else { throw .invalidValue(propertyList, for: UUID.self) }
        self = uuid
    }
}
