public import Hangar
public import PropertyList

/// An airplane with an engine.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type (subclasses keep it so).
open class PoweredAirplane: Airplane, @unchecked Sendable {
    /// The keys a powered airplane adds.
    public enum PoweredKey: String {
        case engineHorsepower, engineHours
    }

    /// Rated engine power.
    public let engineHorsepower: Int
    /// Hours on the engine since new.
    public let engineHours: UInt64

    /// A powered airplane with the given fields.
    public init(
        model: String, registrationNumber: String, airframeHours: UInt64, engineHorsepower: Int, engineHours: UInt64
    ) {
        self.engineHorsepower = engineHorsepower
        self.engineHours = engineHours
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    public required init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        engineHorsepower = try reader.read(PoweredKey.engineHorsepower)
        engineHours = try reader.read(PoweredKey.engineHours)
        try super.init(propertyList: propertyList)
    }

    open override var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter(super.propertyListRepresentation)
        writer.set(PoweredKey.engineHorsepower, engineHorsepower)
        writer.set(PoweredKey.engineHours, engineHours)
        return writer.propertyList
    }
}
