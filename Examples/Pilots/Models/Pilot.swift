public import Foundation
public import Hangar
public import PropertyList

/// A pilot and the airplanes they fly.
public struct Pilot: PropertyListRepresentable, Sendable {
    /// The keys a pilot writes.
    public enum Key: String {
        case name, licenseNumber, dateOfBirth, homeAirfield, airplanes
    }

    /// Full name.
    public var name: String
    /// The license number, when known.
    public var licenseNumber: String?
    /// Date of birth, when known.
    public var dateOfBirth: Date?
    /// ICAO code of the home airfield, when known.
    public var homeAirfield: String?
    /// Airplanes of any kind; each keeps its own fields through its class tag.
    public var airplanes: [Airplane]

    /// A pilot with the given fields.
    public init(
        name: String, licenseNumber: String? = nil, dateOfBirth: Date? = nil, homeAirfield: String? = nil,
        airplanes: [Airplane] = []
    ) {
        self.name = name
        self.licenseNumber = licenseNumber
        self.dateOfBirth = dateOfBirth
        self.homeAirfield = homeAirfield
        self.airplanes = airplanes
    }

    public init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        name = try reader.read(Key.name)
        licenseNumber = try reader.readIfPresent(Key.licenseNumber)
        dateOfBirth = try reader.readIfPresent(Key.dateOfBirth)
        homeAirfield = try reader.readIfPresent(Key.homeAirfield)
        airplanes = try reader.readIfPresent(Key.airplanes) ?? []
    }

    public var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set(Key.name, name)
        writer.set(Key.licenseNumber, licenseNumber)
        writer.set(Key.dateOfBirth, dateOfBirth)
        writer.set(Key.homeAirfield, homeAirfield)
        writer.set(Key.airplanes, airplanes)
        return writer.propertyList
    }
}
