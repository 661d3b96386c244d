public import PropertyList

extension DictionaryReader {
    /// The entries whose keys `Key` does not name: what a newer version added that this code does not know.
    ///
    /// A model that keeps them and writes them back (starting its ``DictionaryWriter`` from them) never
    /// destroys a newer app's additions inside it; the store does the same for a document's top level.
    ///
    /// ```swift
    /// extra = reader.unknownEntries(Key.self)                            // in init(propertyList:)
    /// var writer = DictionaryWriter(.dictionary(extra))                   // in propertyListRepresentation
    /// ```
    public func unknownEntries<Key: CaseIterable & RawRepresentable<String>>(_: Key.Type) -> PropertyList.Dictionary {
        // Scalar-exact, as the dictionary's own keys are: a canonically equivalent spelling is another key.
        let known = Set(Key.allCases.map { PropertyList.DictionaryKey($0.rawValue) })
        return entries.filter { !known.contains(PropertyList.DictionaryKey($0.key)) }
    }
}
