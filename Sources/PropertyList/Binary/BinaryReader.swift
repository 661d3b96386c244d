enum BinaryReader {
    static func read(_ bytes: [UInt8], limits: DecodingLimits) throws(PropertyListError) -> PropertyList {
        throw PropertyListError(.unsupported, "BinaryReader is not implemented yet")
    }
}
