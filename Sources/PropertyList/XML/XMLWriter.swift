// Placeholder until this codec lands; it fails loudly rather than pretending.
enum XMLWriter {
    static func write(_ value: PropertyList) throws(PropertyListError) -> [UInt8] {
        throw PropertyListError(.unsupported, "XMLWriter is not implemented yet")
    }
}
