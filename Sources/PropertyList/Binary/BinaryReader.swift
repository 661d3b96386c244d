/// Decodes `bplist00` (see Documentation/bplist-format.md §1).
///
/// Everything that can be checked up front is: the trailer, every offset-table entry, and then each
/// object's payload against the end of the object area before anything is allocated. Objects are decoded
/// once and memoized by object number, so shared references cost nothing; a budget counts the values the
/// tree holds once shared references are expanded, and an on-path bit per object catches cycles.
///
/// A UID (`8n`, NSKeyedArchiver) reads as ``PropertyList/uid(_:)``: n+1 bytes (1 to 16), as CF reads it, with
/// CF's range 0 … 2^32−1. Sets, null, fill, URLs, UUIDs and the `bplist1x` formats are `unsupported` errors.
enum BinaryReader {
    /// `plain` turns off what only saves memory (keeping only shared objects, sharing key arrays): the tests
    /// check that both ways give the same value or the same error.
    static func read(_ bytes: [UInt8], limits: DecodingLimits, plain: Bool = false) throws(PropertyListError)
        -> PropertyList
    {
        try withByteReader(bytes) { (reader) throws(PropertyListError) -> PropertyList in
            let trailer = try BinaryTrailer(reader, limits: limits)
            var decoder = try BinaryDecoder(reader, trailer: trailer, limits: limits, plain: plain)
            return try decoder.decodeRoot()
        }
    }
}

/// Two upper-case hex digits.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
}
