public import Hangar
public import PropertyList

/// An airplane without an engine, launched by aerotow or winch.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type (subclasses keep it so).
open class Glider: Airplane, @unchecked Sendable {
    /// The keys a glider adds.
    public enum GliderKey: String {
        case aerotowLaunchCount, winchLaunchCount
    }

    /// Launches behind a tow plane.
    public let aerotowLaunchCount: Int
    /// Launches by winch.
    public let winchLaunchCount: Int

    /// A glider with the given fields.
    public init(
        model: String, registrationNumber: String, airframeHours: UInt64, aerotowLaunchCount: Int, winchLaunchCount: Int
    ) {
        self.aerotowLaunchCount = aerotowLaunchCount
        self.winchLaunchCount = winchLaunchCount
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    public required init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        aerotowLaunchCount = try reader.read(GliderKey.aerotowLaunchCount)
        winchLaunchCount = try reader.read(GliderKey.winchLaunchCount)
        try super.init(propertyList: propertyList)
    }

    open override var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter(super.propertyListRepresentation)
        writer.set(GliderKey.aerotowLaunchCount, aerotowLaunchCount)
        writer.set(GliderKey.winchLaunchCount, winchLaunchCount)
        return writer.propertyList
    }
}
