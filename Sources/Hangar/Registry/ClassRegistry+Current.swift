public import PropertyList

extension ClassRegistry {
    /// The registry that reads and writes on this task or thread consult; empty unless one is bound.
    @TaskLocal public static var current = ClassRegistry()

    /// Runs `body` with this registry as ``current``, for code that calls `init(propertyList:)` or
    /// `propertyListRepresentation` itself.
    public func withCurrent<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let outcome = ClassRegistry.$current.withValue(self) { Swift.Result(catching: body) }
        return try outcome.get()
    }

    /// Reads a `T` from `value` with this registry: a tagged dictionary becomes the registered subclass.
    public func decode<T: PropertyListRepresentable>(_ type: T.Type, from value: PropertyList) throws(HangarError) -> T
    {
        try withCurrent { () throws(HangarError) in try ModelCoding.decode(T.self, from: value, at: .root) }
    }

    /// The representation of `value` with this registry: registered classes, nested ones included, carry their tags.
    public func encode(_ value: some PropertyListRepresentable) -> PropertyList {
        withCurrent { ModelCoding.encode(value) }
    }
}
