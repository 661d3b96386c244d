// Placeholder until this codec lands; it fails loudly rather than pretending.
enum XMLReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        throw PropertyListError(.unsupported, "XMLReader is not implemented yet")
    }
}
