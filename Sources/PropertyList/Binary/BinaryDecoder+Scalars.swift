/// The decoder's leaves: scalars, counts and payload checks, and the errors they throw.
extension BinaryDecoder {
    // MARK: Scalars and counts

    /// What validating returns for a string: a string (a key must be one) kept exactly when the real one would
    /// be (``isWorthKeeping(_:)``), without building it. Both are literals, so nothing is allocated.
    static func stringStandIn(utf8Count: Int) -> PropertyList {
        .string(utf8Count > 15 ? "a stand-in longer than fifteen UTF-8 bytes" : "")
    }

    /// How many of `count` bytes at `offset` are above 0x7F (each two UTF-8 bytes as Latin-1).
    func highBytes(at offset: Int, count: Int) -> Int {
        var high = 0
        for index in offset..<(offset + count) where reader[index] >= 0x80 { high += 1 }
        return high
    }

    /// The UTF-8 length of `units` big-endian UTF-16 units at `offset`, or `nil` at an unpaired surrogate.
    func utf8Count(utf16At offset: Int, units: Int) -> Int? {
        var total = 0
        var index = 0
        while index < units {
            let unit = UInt16(truncatingIfNeeded: reader.bigEndianUInt(at: offset + 2 * index, width: 2))
            index += 1
            switch unit {
            case ..<0x80: total += 1
            case ..<0x800: total += 2
            case 0xD800...0xDBFF:
                guard index < units else { return nil }
                let next = UInt16(truncatingIfNeeded: reader.bigEndianUInt(at: offset + 2 * index, width: 2))
                guard (0xDC00...0xDFFF).contains(next) else { return nil }
                index += 1
                total += 4
            case 0xDC00...0xDFFF: return nil
            default: total += 3
            }
        }
        return total
    }

    func integer(at start: Int, sizeExponent: Int) throws(PropertyListError) -> PropertyList.Integer {
        guard sizeExponent <= 4 else {
            throw PropertyListError(
                .binaryStructure("An integer of 2^\(sizeExponent) bytes is not valid (at most 16)"),
                at: .byteOffset(start))
        }
        let width = 1 << sizeExponent
        try checkPayload(start: start + 1, count: width, elementSize: 1, at: start)
        switch width {
        case 1, 2, 4:
            // Integers narrower than 8 bytes are unsigned in bplist00.
            return .init(reader.bigEndianUInt(at: start + 1, width: width))
        case 8:
            return .init(Int64(bitPattern: reader.bigEndianUInt(at: start + 1, width: 8)))
        default:
            // 16 bytes: a signed 128-bit value; ours holds −2^63 … 2^64−1.
            let high = reader.bigEndianUInt(at: start + 1, width: 8)
            let low = reader.bigEndianUInt(at: start + 9, width: 8)
            if high == 0 { return .init(low) }
            if high == .max, low >= 1 << 63 { return .init(Int64(bitPattern: low)) }
            throw PropertyListError(
                .numberOutOfRange("A 16-byte integer is outside −2^63 … 2^64−1"), at: .byteOffset(start))
        }
    }

    /// A UID of `width` bytes (1 to 16, big-endian, not necessarily the fewest): CF's range is 0 … 2^32−1
    /// (`_CFKeyedArchiverUIDCreate` takes a `uint32_t`), so a larger value is refused, as CF and libplist refuse
    /// the whole file. CF keeps only the low 64 bits of a wider payload (a 16-byte 2^64+5 reads as 5 there); here
    /// any non-zero byte above the low four is out of range, so no value is silently cut.
    func uid(at start: Int, width: Int) throws(PropertyListError) -> UInt32 {
        try checkPayload(start: start + 1, count: width, elementSize: 1, at: start)
        var high: UInt64 = 0
        var index = start + 1
        while index < start + 1 + width - 4 {
            high |= UInt64(reader[index])
            index += 1
        }
        let lowWidth = min(width, 4)
        let low = reader.bigEndianUInt(at: start + 1 + width - lowWidth, width: lowWidth)
        guard high == 0, low <= UInt64(UInt32.max) else {
            throw PropertyListError(
                .numberOutOfRange("A UID of \(width) bytes is above 2^32−1, the largest a keyed archive holds"),
                at: .byteOffset(start))
        }
        return UInt32(truncatingIfNeeded: low)
    }

    /// The count of a data, string or container object and where its payload starts, the payload checked to
    /// end before the offset table.
    func countAndPayload(marker: UInt8, elementSize: Int, at start: Int) throws(PropertyListError)
        -> (count: Int, payload: Int)
    {
        let (count, payload) = try declaredCount(of: marker, at: start)
        try checkPayload(start: payload, count: count, elementSize: elementSize, at: start)
        return (count, payload)
    }

    /// The count of a data, string or container object, and where its payload starts (not yet bounds-checked).
    func declaredCount(of marker: UInt8, at start: Int) throws(PropertyListError) -> (count: Int, payload: Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        // 0xF: the count follows as an integer object `1n` of 1, 2, 4 or 8 bytes.
        try checkPayload(start: start + 1, count: 1, elementSize: 1, at: start)
        let countMarker = reader[start + 1]
        guard countMarker >> 4 == 0x1, countMarker & 0x0F <= 3 else {
            throw PropertyListError(
                .binaryStructure(
                    "The count after marker 0x\(hex(marker)) is not an integer (marker 0x\(hex(countMarker)))"),
                at: .byteOffset(start + 1))
        }
        let width = 1 << Int(countMarker & 0x0F)
        try checkPayload(start: start + 2, count: width, elementSize: 1, at: start)
        let value = reader.bigEndianUInt(at: start + 2, width: width)
        // Any count the object area can hold fits in Int; a larger one is refused by checkPayload's bound.
        guard value <= UInt64(trailer.offsetTableOffset) else {
            throw payloadPastEnd(count: value, at: start)
        }
        return (Int(value), start + 2 + width)
    }

    func containerHeader(marker: UInt8, at start: Int, depth: Int, refsPerEntry: Int) throws(PropertyListError)
        -> (count: Int, refs: Int)
    {
        guard depth < limits.maxDepth else {
            throw PropertyListError(
                .tooDeep(limit: limits.maxDepth, containers: "arrays or dictionaries"), at: .byteOffset(start))
        }
        let (length, refs) = try countAndPayload(
            marker: marker, elementSize: refsPerEntry * trailer.objectRefSize, at: start)
        return (length, refs)
    }

    /// Checks that `count` elements of `elementSize` bytes from `payload` end before the offset table,
    /// before anything is read or allocated.
    @inline(__always)
    func checkPayload(start payload: Int, count: Int, elementSize: Int, at start: Int) throws(PropertyListError) {
        let (size, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow, payload <= trailer.offsetTableOffset, size <= trailer.offsetTableOffset - payload else {
            throw payloadPastEnd(count: UInt64(count), at: start)
        }
    }

    /// Where `object` starts: its offset-table entry, checked in `init` to lie in the object area.
    @inline(__always)
    func offset(of object: Int) -> Int {
        let width = trailer.offsetIntSize
        return Int(
            truncatingIfNeeded: reader.bigEndianUInt(at: trailer.offsetTableOffset + object * width, width: width))
    }

    func reference(at site: Int) throws(PropertyListError) -> Int {
        let ref = reader.bigEndianUInt(at: site, width: trailer.objectRefSize)
        guard ref < UInt64(trailer.objectCount) else {
            throw PropertyListError(
                .binaryStructure("A reference to object \(ref) is out of range (\(trailer.objectCount) objects)"),
                at: .byteOffset(site))
        }
        return Int(ref)
    }

    // MARK: Errors

    func payloadPastEnd(count: UInt64, at start: Int) -> PropertyListError {
        PropertyListError(
            .binaryStructure("An object's count (\(count)) runs past the end of the object area"),
            at: .byteOffset(start))
    }

    func unsupported(_ what: String, at start: Int) -> PropertyListError {
        PropertyListError(.unsupportedType(what), at: .byteOffset(start))
    }

    func unknownMarker(_ marker: UInt8, at start: Int) -> PropertyListError {
        PropertyListError(.binaryStructure("Unknown object marker 0x\(hex(marker))"), at: .byteOffset(start))
    }
}
