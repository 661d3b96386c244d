public import PropertyList

/// The model a collection's documents must read as, declared in ``CollectionOptions/model``: every envelope
/// saved into the collection as it is (a sync push, an HTTP body kept as sent, an import, `hangar db put`, a
/// restore) is opened with the collection's format (an older major migrated in memory, a newer minor as it is)
/// and read by the model through the store's class registry, and refused with the model's own error (its code
/// and path) when the model would refuse it. So what a typed save would refuse, no other way in stores, and a
/// later typed load never meets a document its model cannot read.
///
/// Typed saves (``DocumentWriter/save(_:key:in:expectedRevision:)``) are not checked again: the model wrote the
/// content itself. A document stored at a major newer than the format reads is not checked (the model cannot
/// read it; the store refuses it unless the save overwrites newer majors on purpose).
public struct DocumentModel: Sendable {
    /// The model's name, for messages.
    public let name: String
    private let read: @Sendable (PropertyList, ClassRegistry) throws(HangarError) -> Void

    /// The model `Model`: a document must decode as one through the store's registry.
    public init<Model: PropertyListRepresentable & SendableMetatype>(_ model: Model.Type) {
        name = String(describing: model)
        read = { value, registry throws(HangarError) in _ = try registry.decode(Model.self, from: value) }
    }

    /// Checks opened content (version keys removed, upgraded to the current major) against the model.
    public func check(_ content: PropertyList.Dictionary, registry: ClassRegistry) throws(HangarError) {
        try read(.dictionary(content), registry)
    }
}
