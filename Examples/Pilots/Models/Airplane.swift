public import Hangar
public import PropertyList

/// An airplane, the base of the seed's class hierarchy.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type (subclasses keep it so).
open class Airplane: PropertyListRepresentable, @unchecked Sendable {
    /// The keys every airplane writes.
    public enum Key: String {
        case model, registrationNumber, airframeHours
    }

    /// The type designation, like `"Piper PA-18"`.
    public let model: String
    /// The registration, like `"D-EFGH"`.
    public let registrationNumber: String
    /// Total airframe hours; an `unsigned long long` in the seed, so the whole `UInt64` range.
    public let airframeHours: UInt64

    /// An airplane with the given fields.
    public init(model: String, registrationNumber: String, airframeHours: UInt64) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    public required init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        model = try reader.read(Key.model)
        registrationNumber = try reader.read(Key.registrationNumber)
        airframeHours = try reader.read(Key.airframeHours)
    }

    open var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set(Key.model, model)
        writer.set(Key.registrationNumber, registrationNumber)
        writer.set(Key.airframeHours, airframeHours)
        return writer.propertyList
    }
}
