// Placeholder until this codec lands; it fails loudly rather than pretending.
enum OpenStepReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        throw PropertyListError(.unsupported, "OpenStepReader is not implemented yet")
    }
}
