enum BinaryWriter {
    static func write(_ value: PropertyList) throws(PropertyListError) -> [UInt8] {
        throw PropertyListError(.unsupported, "BinaryWriter is not implemented yet")
    }
}
