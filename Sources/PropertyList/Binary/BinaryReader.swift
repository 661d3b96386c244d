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
            let trailer = try Trailer(reader, limits: limits)
            var decoder = try BinaryDecoder(reader, trailer: trailer, limits: limits, plain: plain)
            return try decoder.decodeRoot()
        }
    }
}

/// The facts the last 32 bytes give, validated.
struct Trailer {
    let offsetIntSize: Int
    let objectRefSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableOffset: Int

    init(_ reader: ByteReader, limits: DecodingLimits) throws(PropertyListError) {
        let count = reader.count
        guard reader.matches(BinaryFormat.magicPrefix, at: 0), count >= 8 else {
            throw PropertyListError(.notBinary, at: .byteOffset(0))
        }
        // Apple reads "bplist0" + any character; bplist1x (15, 16, 17) are private, different formats.
        guard reader[6] == UInt8(ascii: "0") else {
            let version = String(decoding: [reader[6], reader[7]], as: UTF8.self)
            throw PropertyListError(.unsupportedBinaryVersion(version), at: .byteOffset(6))
        }
        guard count >= BinaryFormat.minimumFileSize else {
            throw PropertyListError(
                .binaryStructure("The file is \(count) bytes, shorter than the smallest binary property list (42)"),
                at: .byteOffset(count))
        }
        let start = count - BinaryFormat.trailerSize
        offsetIntSize = Int(reader[start + 6])
        objectRefSize = Int(reader[start + 7])
        let objects = reader.bigEndianUInt(at: start + 8, width: 8)
        let top = reader.bigEndianUInt(at: start + 16, width: 8)
        let tableOffset = reader.bigEndianUInt(at: start + 24, width: 8)

        // Widths outside 1…8 cannot be read as integers.
        guard (1...8).contains(offsetIntSize) else {
            throw PropertyListError(
                .binaryStructure("The trailer's offset size is \(offsetIntSize); it must be 1 to 8"),
                at: .byteOffset(start + 6))
        }
        guard (1...8).contains(objectRefSize) else {
            throw PropertyListError(
                .binaryStructure("The trailer's object reference size is \(objectRefSize); it must be 1 to 8"),
                at: .byteOffset(start + 7))
        }
        guard objects >= 1 else {
            throw PropertyListError(.binaryStructure("The trailer declares no objects"), at: .byteOffset(start + 8))
        }
        // Every object takes at least one byte, so a count above the file size is a lie (bpo-42103's DoS).
        guard objects <= UInt64(count), objects <= UInt64(limits.maxObjects) else {
            let overLimit = objects <= UInt64(count)
            throw PropertyListError(
                .tooManyObjects(
                    "The trailer declares \(objects) objects, more than "
                        + (overLimit ? "the limit of \(limits.maxObjects)" : "the file can hold"),
                    overLimit: overLimit),
                at: .byteOffset(start + 8))
        }
        guard top < objects else {
            throw PropertyListError(
                .binaryStructure("The top object \(top) is not among the \(objects) objects"),
                at: .byteOffset(start + 16))
        }
        // The offset table sits between the objects (which start at 8) and the trailer, and fills that gap exactly:
        // no garbage between the table and the trailer (Apple's and go-plist's rule).
        let (tableSize, overflow) = objects.multipliedReportingOverflow(by: UInt64(offsetIntSize))
        guard tableOffset >= 9, tableOffset < UInt64(start), !overflow, tableSize <= UInt64(start) - tableOffset,
            tableOffset + tableSize == UInt64(start)
        else {
            throw PropertyListError(
                .binaryStructure(
                    "The offset table (\(objects) × \(offsetIntSize)-byte entries at offset \(tableOffset)) "
                        + "does not fill the space between the objects and the trailer"),
                at: .byteOffset(start + 24))
        }
        objectCount = Int(objects)
        topObject = Int(top)
        offsetTableOffset = Int(tableOffset)
    }
}

/// The recursive decoder over validated offsets.
struct BinaryDecoder {
    let reader: ByteReader
    let trailer: Trailer
    private let limits: DecodingLimits
    /// Object number → ``onPathBit`` while its children are being decoded (a reference back to it is a cycle);
    /// ``SharedObjects/sharedBit`` when more than one reference points at it; in the low bits
    /// (``SharedObjects/indexMask``) 1 + its index in `kept` once decoded and kept, else 0. One 4-byte word an
    /// object keeps the decoder's own memory small beside the value it builds.
    private(set) var slots: [UInt32]
    private static let onPathBit: UInt32 = 1 << 31
    /// The decoded objects worth keeping, with how many values each holds (shared children counted every time),
    /// among those referenced more than once: containers, so that a shared one is neither decoded nor counted
    /// item by item again, and heap-backed leaves (long strings, data), so that references to one share its
    /// storage. A small leaf costs less to decode again at each reference than a kept copy for every object would.
    private var kept: [(value: PropertyList, size: Int)] = []
    /// Key arrays shared between dictionaries with the same keys (when `sharingKeys`).
    private var keyLists = KeyLists()
    private let sharingKeys: Bool
    /// The expansion budget.
    private let maxExpandedNodes: Int
    /// Values produced so far, shared references counted as often as they are used.
    private var expandedCount = 0
    /// Walks the whole graph with every check and count the decode makes, building no containers or data
    /// (``BinaryPropertyListMap``): the same error as a decode, or none, at a fraction of the allocations.
    private let validating: Bool

    init(
        _ reader: ByteReader, trailer: Trailer, limits: DecodingLimits, plain: Bool = false, validating: Bool = false
    ) throws(PropertyListError) {
        self.reader = reader
        self.trailer = trailer
        self.limits = limits
        self.validating = validating
        let width = trailer.offsetIntSize
        for index in 0..<trailer.objectCount {
            let entry = trailer.offsetTableOffset + index * width
            let offset = reader.bigEndianUInt(at: entry, width: width)
            // An object lives after the header and before the offset table.
            guard offset >= 8, offset < UInt64(trailer.offsetTableOffset) else {
                throw PropertyListError(
                    .binaryStructure(
                        "Object \(index) has offset \(offset), outside the object area 8..<\(trailer.offsetTableOffset)"
                    ),
                    at: .byteOffset(entry))
            }
        }
        slots = plain ? SharedObjects.allShared(trailer) : SharedObjects.slots(reader, trailer: trailer)
        sharingKeys = !plain && !validating
        maxExpandedNodes = limits.maxExpandedNodes
    }

    /// A decoder over a file another decoder has validated (its offsets checked, `slots` its shared bits as
    /// first computed), for reading parts of it again.
    init(validated reader: ByteReader, trailer: Trailer, limits: DecodingLimits, slots: [UInt32]) {
        self.reader = reader
        self.trailer = trailer
        self.limits = limits
        self.slots = slots
        validating = false
        sharingKeys = true
        maxExpandedNodes = limits.maxExpandedNodes
    }

    mutating func decodeRoot() throws(PropertyListError) -> PropertyList {
        try value(object: trailer.topObject, depth: 0, referencedAt: trailer.offsetTableOffset)
    }

    /// A leaf object's value on its own (for ``BinaryRewriter``), not counted against the expansion budget.
    mutating func leaf(object: Int) throws(PropertyListError) -> PropertyList {
        let before = expandedCount
        defer { expandedCount = before }
        return try decode(object: object, depth: 0)
    }

    // MARK: Objects

    private mutating func value(object: Int, depth: Int, referencedAt site: Int) throws(PropertyListError)
        -> PropertyList
    {
        let slot = slots[object]
        guard slot & Self.onPathBit == 0 else {
            throw PropertyListError(.referenceCycle(object: object), at: .byteOffset(site))
        }
        let index = slot & SharedObjects.indexMask
        if index != 0 {
            let entry = kept[Int(index) - 1]
            try count(entry.size, at: site)
            return entry.value
        }
        let before = expandedCount
        let result = try decode(object: object, depth: depth)
        if slot & SharedObjects.sharedBit != 0, Self.isWorthKeeping(result) {
            kept.append((result, expandedCount - before))
            slots[object] = SharedObjects.sharedBit | UInt32(truncatingIfNeeded: kept.count)
        }
        return result
    }

    /// Containers, and leaves whose storage is on the heap (a string of more than 15 UTF-8 bytes, data).
    private static func isWorthKeeping(_ value: PropertyList) -> Bool {
        switch value {
        case .array, .dictionary: true
        case .string(let string): string.utf8.count > 15
        case .data(let bytes): !bytes.isEmpty
        default: false
        }
    }

    private mutating func count(_ values: Int, at site: Int) throws(PropertyListError) {
        expandedCount += values
        // Shared references let a few bytes describe 2^64 values; stop before the tree outgrows the budget.
        guard expandedCount <= maxExpandedNodes else {
            throw PropertyListError(.expansionBudget(limit: maxExpandedNodes), at: .byteOffset(site))
        }
    }

    private mutating func decode(object: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        let start = offset(of: object)
        let marker = reader[start]
        let info = Int(marker & 0x0F)
        try count(1, at: start)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            case 0x00: throw unsupported("null (marker 0x00)", at: start)
            case 0x0F: throw unsupported("fill (marker 0x0F)", at: start)
            case 0x0C, 0x0D: throw unsupported("URL (marker 0x\(hex(marker)))", at: start)
            case 0x0E: throw unsupported("UUID (marker 0x0E)", at: start)
            default: throw unknownMarker(marker, at: start)
            }
        case 0x1:
            return .integer(try integer(at: start, sizeExponent: info))
        case 0x2:
            guard info == 2 || info == 3 else {
                throw PropertyListError(
                    .binaryStructure("A real of \(1 << min(info, 15)) bytes is not valid (only 4 or 8)"),
                    at: .byteOffset(start))
            }
            let width = 1 << info
            try checkPayload(start: start + 1, count: width, elementSize: 1, at: start)
            let bits = reader.bigEndianUInt(at: start + 1, width: width)
            return .real(
                info == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            guard marker == 0x33 else { throw unknownMarker(marker, at: start) }
            try checkPayload(start: start + 1, count: 8, elementSize: 1, at: start)
            let seconds = Double(bitPattern: reader.bigEndianUInt(at: start + 1, width: 8))
            // XML and JSON cannot write a NaN or infinite date; refusing it keeps every format round-trippable.
            guard seconds.isFinite else {
                throw PropertyListError(.nonFiniteDate(seconds, writing: false), at: .byteOffset(start))
            }
            return .date(seconds)
        case 0x4:
            let (length, payload) = try countAndPayload(marker: marker, elementSize: 1, at: start)
            // Validating: a stand-in that is kept (and is no key) exactly when the data would be.
            if validating { return length == 0 ? .data([]) : .array([]) }
            return .data(reader.bytes(at: payload, count: length))
        case 0x5:
            let (length, payload) = try countAndPayload(marker: marker, elementSize: 1, at: start)
            if validating { return Self.stringStandIn(utf8Count: length + highBytes(at: payload, count: length)) }
            // Bytes above 0x7F are read as ISO-8859-1, as CF reads them: non-Apple writers put UTF-8 (and
            // Latin-1) bytes in ASCII-marked strings, and CF's value is the one their users have seen.
            return .string(
                reader.asciiString(at: payload, count: length) ?? reader.latin1String(at: payload, count: length))
        case 0x6:
            let (units, payload) = try countAndPayload(marker: marker, elementSize: 2, at: start)
            if validating, let utf8Count = utf8Count(utf16At: payload, units: units) {
                return Self.stringStandIn(utf8Count: utf8Count)
            }
            guard let string = reader.utf16BigEndianString(at: payload, units: units) else {
                throw PropertyListError(
                    .unpairedSurrogate("A UTF-16 string holds an unpaired surrogate"), at: .byteOffset(start))
            }
            return .string(string)
        case 0x8:
            return .uid(try uid(at: start, width: info + 1))
        case 0xA:
            return .array(try array(object: object, marker: marker, at: start, depth: depth))
        case 0xC:
            throw unsupported("set (marker 0x\(hex(marker)))", at: start)
        case 0xD:
            return .dictionary(try dictionary(object: object, marker: marker, at: start, depth: depth))
        case 0x7:
            throw unsupported("UTF-8 string (marker 0x\(hex(marker)), a bplist1x type)", at: start)
        case 0xB:
            throw unsupported("ordered set (marker 0x\(hex(marker)), a bplist1x type)", at: start)
        default:
            throw unknownMarker(marker, at: start)
        }
    }

    private mutating func array(object: Int, marker: UInt8, at start: Int, depth: Int) throws(PropertyListError)
        -> [PropertyList]
    {
        let (length, refs) = try containerHeader(marker: marker, at: start, depth: depth, refsPerEntry: 1)
        slots[object] |= Self.onPathBit
        var elements = [PropertyList]()
        if !validating { elements.reserveCapacity(length) }
        for index in 0..<length {
            let site = refs + index * trailer.objectRefSize
            let element = try value(object: try reference(at: site), depth: depth + 1, referencedAt: site)
            if !validating { elements.append(element) }
        }
        slots[object] &= ~Self.onPathBit
        return elements
    }

    private mutating func dictionary(object: Int, marker: UInt8, at start: Int, depth: Int) throws(PropertyListError)
        -> PropertyList.Dictionary
    {
        let (length, refs) = try containerHeader(marker: marker, at: start, depth: depth, refsPerEntry: 2)
        slots[object] |= Self.onPathBit
        let keyBytes = length * trailer.objectRefSize
        let hash = reader.hash(at: refs, count: keyBytes)
        // The same key references as an earlier dictionary: the same string objects, so the same keys, already
        // checked to be strings in ascending order. Each still counts one value, where it did when decoded.
        let known = sharingKeys ? keyLists.keys(reader, refs: refs, byteCount: keyBytes, hash: hash) : nil
        var keys: [String] = []
        var values: [PropertyList] = []
        if !validating {
            if known == nil { keys.reserveCapacity(length) }
            values.reserveCapacity(length)
        }
        let valueRefs = refs + keyBytes
        for index in 0..<length {
            let keySite = refs + index * trailer.objectRefSize
            if known != nil {
                // Where decoding the key would have counted it: at the reference if kept, else at the object.
                let keyObject = try reference(at: keySite)
                try count(1, at: slots[keyObject] & SharedObjects.indexMask != 0 ? keySite : offset(of: keyObject))
            } else {
                let keyObject = try reference(at: keySite)
                guard case .string(let key) = try value(object: keyObject, depth: depth + 1, referencedAt: keySite)
                else {
                    throw PropertyListError(.nonStringKey(object: keyObject), at: .byteOffset(keySite))
                }
                if !validating { keys.append(key) }
            }
            let valueSite = valueRefs + index * trailer.objectRefSize
            let entry = try value(object: try reference(at: valueSite), depth: depth + 1, referencedAt: valueSite)
            if !validating { values.append(entry) }
        }
        slots[object] &= ~Self.onPathBit
        if validating { return [:] }
        if let known { return PropertyList.Dictionary(ascendingKeys: known, values: values) }
        guard PropertyList.Dictionary.isAscending(keys) else {
            // A key given twice keeps its last value, as Apple's XML reader, CPython and go-plist do.
            return PropertyList.Dictionary(keys: keys, values: values, uniquingKeysWith: { _, last in last })
        }
        keyLists.remember(keys, refs: refs, byteCount: keyBytes, hash: hash)
        return PropertyList.Dictionary(ascendingKeys: keys, values: values)
    }

    // MARK: Scalars and counts

    /// What validating returns for a string: a string (a key must be one) kept exactly when the real one would
    /// be (``isWorthKeeping(_:)``), without building it. Both are literals, so nothing is allocated.
    private static func stringStandIn(utf8Count: Int) -> PropertyList {
        .string(utf8Count > 15 ? "a stand-in longer than fifteen UTF-8 bytes" : "")
    }

    /// How many of `count` bytes at `offset` are above 0x7F (each two UTF-8 bytes as Latin-1).
    private func highBytes(at offset: Int, count: Int) -> Int {
        var high = 0
        for index in offset..<(offset + count) where reader[index] >= 0x80 { high += 1 }
        return high
    }

    /// The UTF-8 length of `units` big-endian UTF-16 units at `offset`, or `nil` at an unpaired surrogate.
    private func utf8Count(utf16At offset: Int, units: Int) -> Int? {
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

    private func integer(at start: Int, sizeExponent: Int) throws(PropertyListError) -> PropertyList.Integer {
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
    private func uid(at start: Int, width: Int) throws(PropertyListError) -> UInt32 {
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
    private func countAndPayload(marker: UInt8, elementSize: Int, at start: Int) throws(PropertyListError)
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

    private func containerHeader(marker: UInt8, at start: Int, depth: Int, refsPerEntry: Int) throws(PropertyListError)
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
    private func checkPayload(start payload: Int, count: Int, elementSize: Int, at start: Int) throws(PropertyListError)
    {
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

    private func payloadPastEnd(count: UInt64, at start: Int) -> PropertyListError {
        PropertyListError(
            .binaryStructure("An object's count (\(count)) runs past the end of the object area"),
            at: .byteOffset(start))
    }

    private func unsupported(_ what: String, at start: Int) -> PropertyListError {
        PropertyListError(.unsupportedType(what), at: .byteOffset(start))
    }

    private func unknownMarker(_ marker: UInt8, at start: Int) -> PropertyListError {
        PropertyListError(.binaryStructure("Unknown object marker 0x\(hex(marker))"), at: .byteOffset(start))
    }
}

/// Two upper-case hex digits.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
}
