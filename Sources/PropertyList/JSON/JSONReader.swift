// Placeholder until this codec lands; it fails loudly rather than pretending.
enum JSONReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        throw PropertyListError(.unsupported, "JSONReader is not implemented yet")
    }
}
