// Placeholder until this codec lands; it fails loudly rather than pretending.
enum JSONWriter {
    static func write(_ value: PropertyList, options: JSONEncodingOptions) throws(PropertyListError) -> [UInt8] {
        throw PropertyListError(.unsupported, "JSONWriter is not implemented yet")
    }
}
