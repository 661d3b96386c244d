// Shared by the fuzz targets: a value that decoded must survive a round trip through `format`.

func roundTrip(_ value: PropertyList, as format: PropertyListFormat) {
    let encoded: [UInt8]
    do {
        encoded = try value.encoded(as: format)
    } catch {
        // Only values a format cannot hold may fail to encode (e.g. JSON dates); binary holds everything decoded.
        if format == .binary { fatalError("decoded value failed to encode: \(error)") }
        return
    }
    guard let again = try? PropertyList.decode(encoded).value else {
        fatalError("re-encoded value failed to decode")
    }
    if format == .binary, again != value { fatalError("round trip changed the value") }
}
