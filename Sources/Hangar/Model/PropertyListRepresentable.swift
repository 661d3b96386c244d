public import PropertyList

/// A type that turns itself into a property-list value and back.
///
/// Structs, enums and classes conform alike. A subclass overrides both members: its initializer reads its
/// own fields and then calls `super.init(propertyList:)`, and its representation extends `super`'s, so no
/// field is lost. ``DictionaryReader`` and ``DictionaryWriter`` remove the boilerplate:
///
/// ```swift
/// struct Pilot: PropertyListRepresentable {
///     enum Key: String { case name, airplanes }
///     var name: String
///     var airplanes: [Airplane]
///
///     init(propertyList: PropertyList) throws(HangarError) {
///         let reader = try DictionaryReader(propertyList)
///         name = try reader.read(Key.name)
///         airplanes = try reader.read(Key.airplanes)
///     }
///
///     var propertyListRepresentation: PropertyList {
///         var writer = DictionaryWriter()
///         writer.set(Key.name, name)
///         writer.set(Key.airplanes, airplanes)
///         return writer.propertyList
///     }
/// }
/// ```
///
/// Values read through a reader, an array, a dictionary or ``ClassRegistry/decode(_:from:)`` are polymorphic:
/// a dictionary with a `"class"` tag becomes the subclass registered under that tag (see ``ClassRegistry``).
/// Calling `init(propertyList:)` directly always builds exactly the type named.
public protocol PropertyListRepresentable {
    /// The value that ``init(propertyList:)`` reads back into an equal model.
    var propertyListRepresentation: PropertyList { get }

    /// Reads a model from `propertyList`, throwing a ``HangarError`` (never trapping) on any bad input.
    init(propertyList: PropertyList) throws(HangarError)
}
