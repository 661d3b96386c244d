public import Hangar

extension ClassRegistry {
    /// The registry for the pilot models: every airplane kind, allowed where an `Airplane` is read.
    public static let pilots: ClassRegistry = {
        var registry = ClassRegistry()
        registry.register(Airplane.self, tag: "Airplane", as: Airplane.self)
        registry.register(PoweredAirplane.self, tag: "PoweredAirplane", as: Airplane.self)
        registry.register(Glider.self, tag: "Glider", as: Airplane.self)
        return registry
    }()
}
