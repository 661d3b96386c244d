import PropertyList

/// The allow-list of class tags: which concrete types may be built when a value of a base type is read.
///
/// ```swift
/// var registry = ClassRegistry()
/// registry.register(Airplane.self, tag: "Airplane", as: Airplane.self)
/// registry.register(PoweredAirplane.self, tag: "PoweredAirplane", as: Airplane.self)
/// registry.register(Glider.self, tag: "Glider", as: Airplane.self)
/// let pilot = try registry.decode(Pilot.self, from: value)
/// ```
///
/// Encoding a registered object writes its tag under `"class"` next to its fields. Decoding a class-typed
/// value whose dictionary carries a tag looks the tag up among the types registered *for the base type being
/// read* before anything is constructed, and only then calls that type's `init(propertyList:)`. A tag nobody
/// registered, or one registered for another base type, is an error naming the tag and the path. There is no
/// reflection: only the initializers handed to ``register(_:tag:as:)`` can ever run.
///
/// A renamed or retired tag can stay readable through ``alias(_:to:as:)``.
///
/// An object whose dynamic type is not registered is written without a tag and reads back as the base type,
/// so register every subclass that is ever stored (``tag(for:)`` tells whether a type is).
///
/// Build a registry once and share it: it is an immutable value once built, safe to use from any thread.
/// Reads and writes see the registry bound by ``decode(_:from:)``, ``encode(_:)`` or ``withCurrent(_:)``
/// (``current``), because the ``PropertyListRepresentable`` requirements take no context parameter.
public struct ClassRegistry: Sendable {
    struct Entry: Sendable {
        let tag: String
        let typeName: String
        let make: @Sendable (PropertyList) throws(HangarError) -> any PropertyListRepresentable
    }

    /// Base type → tag → entry: the allow-list, per base type. Tags are matched by their bytes: a stored tag
    /// canonically equivalent to a registered one but spelled otherwise is another tag, not allowed by it.
    private var entriesByBase: [ObjectIdentifier: [ExactString: Entry]] = [:]
    /// Tag → names of the base types it is registered for, to explain a disallowed tag.
    private var baseNamesByTag: [ExactString: [String]] = [:]
    /// Concrete type → its tag, for encoding.
    private var tagsByType: [ObjectIdentifier: String] = [:]

    /// An empty registry: every tagged class value is refused.
    public init() {}

    /// Allows `type` to be built under `tag` wherever a `Base` is read, and makes encoding a `type` write `tag`.
    ///
    /// `Base` is a class and `type` is `Base` itself or one of its subclasses. Registering is setup, not input:
    /// a `type` that is not a `Base`, a tag already taken for `base` by another type, or a type given a second,
    /// different tag is a programmer error and stops the program, at startup rather than on some later read.
    public mutating func register<Model: PropertyListRepresentable & SendableMetatype, Base: PropertyListRepresentable>(
        _ type: Model.Type, tag: String, as base: Base.Type
    ) {
        precondition(Base.self is AnyObject.Type, "only classes are polymorphic; \(Base.self) is not a class")
        precondition(Model.self is Base.Type, "\(Model.self) is not \(Base.self) or a subclass of it")
        let typeID = ObjectIdentifier(Model.self)
        let baseID = ObjectIdentifier(Base.self)
        if let existing = tagsByType[typeID] {
            precondition(
                existing.hasSameBytes(as: tag),
                "\(Model.self) is already registered under tag \"\(existing)\", not \"\(tag)\"")
        }
        if let existing = entriesByBase[baseID]?[tag] {
            precondition(
                existing.typeName == "\(Model.self)",
                "tag \"\(tag)\" is already registered for \(Base.self) as \(existing.typeName)")
            return
        }
        let make: @Sendable (PropertyList) throws(HangarError) -> any PropertyListRepresentable = {
            value throws(HangarError) in
            try Model(propertyList: value)
        }
        entriesByBase[baseID, default: [:]][tag] = Entry(tag: tag, typeName: "\(Model.self)", make: make)
        baseNamesByTag[ExactString(tag), default: []].append("\(Base.self)")
        tagsByType[typeID] = tag
    }

    /// Allows documents tagged `oldTag` to be read where a `Base` is read, as the type registered under `tag`.
    ///
    /// For a model type that was renamed (its old tag still sits in stored documents) and for a retired tag
    /// whose documents a replacement type now reads. An alias is an allow-list entry like any other: it lets
    /// exactly one registered type be built, only for `base`. Encoding never writes an alias; the
    /// replacement's own tag is written, so a read-then-save moves a document to the new tag.
    ///
    /// ```swift
    /// registry.register(PoweredAirplane.self, tag: "PoweredAirplane", as: Airplane.self)
    /// registry.alias("MotorAirplane", to: "PoweredAirplane", as: Airplane.self)
    /// ```
    ///
    /// Like ``register(_:tag:as:)`` this is setup: `tag` not yet registered for `base`, or `oldTag` already
    /// taken for `base` by a different type, stops the program.
    public mutating func alias<Base: PropertyListRepresentable>(_ oldTag: String, to tag: String, as base: Base.Type) {
        let baseID = ObjectIdentifier(Base.self)
        guard let target = entriesByBase[baseID]?[tag] else {
            preconditionFailure(
                "alias \"\(oldTag)\": tag \"\(tag)\" is not registered for \(Base.self); register it first")
        }
        if let existing = entriesByBase[baseID]?[oldTag] {
            precondition(
                existing.typeName == target.typeName,
                "tag \"\(oldTag)\" is already registered for \(Base.self) as \(existing.typeName)")
            return
        }
        entriesByBase[baseID, default: [:]][oldTag] = target
        baseNamesByTag[ExactString(oldTag), default: []].append("\(Base.self)")
    }

    /// The tag `type` is registered under, if any.
    public func tag(for type: Any.Type) -> String? {
        tagsByType[ObjectIdentifier(type)]
    }

    /// The tags allowed where a `base` is read, in byte order.
    public func tags(for base: Any.Type) -> [String] {
        (entriesByBase[ObjectIdentifier(base)] ?? [:]).keys.sorted().map(\.string)
    }

    /// The tags allowed where a `base` is read, each with the registered tag it builds (itself, or the one an
    /// alias names), sorted by their bytes.
    func allowedTags(for base: Any.Type) -> [(tag: String, readsAs: String)] {
        (entriesByBase[ObjectIdentifier(base)] ?? [:]).map { (tag: $0.key.string, readsAs: $0.value.tag) }
            .sorted { $0.tag.utf8.lexicographicallyPrecedes($1.tag.utf8) }
    }

    /// Builds the type registered under `tag` for `T`, or throws before constructing anything.
    func instantiate<T>(_: T.Type, tag: String, from value: PropertyList) throws(HangarError) -> T {
        guard let entry = entriesByBase[ObjectIdentifier(T.self)]?[tag] else {
            if let bases = baseNamesByTag[tag] {
                throw HangarError(
                    .disallowedClassTag,
                    "class tag \(tag.debugDescription) is registered for \(bases.joined(separator: ", ")), not for \(T.self)"
                )
            }
            throw HangarError(.unknownClassTag, "unknown class tag \(tag.debugDescription) for \(T.self)")
        }
        guard let model = try entry.make(value) as? T else {
            // Unreachable: `register` only accepts types convertible to their base.
            throw HangarError(.invalidValue, "class tag \(tag.debugDescription) built a value that is not a \(T.self)")
        }
        return model
    }
}
