/// The recursive decoder over validated offsets.
struct BinaryDecoder {
    let reader: ByteReader
    let trailer: BinaryTrailer
    let limits: DecodingLimits
    /// Object number → ``onPathBit`` while its children are being decoded (a reference back to it is a cycle);
    /// ``SharedObjects/sharedBit`` when more than one reference points at it; in the low bits
    /// (``SharedObjects/indexMask``) 1 + its index in `kept` once decoded and kept, else 0. One 4-byte word an
    /// object keeps the decoder's own memory small beside the value it builds.
    private(set) var slots: [UInt32]
    static let onPathBit: UInt32 = 1 << 31
    /// The decoded objects worth keeping, with how many values each holds (shared children counted every time),
    /// among those referenced more than once: containers, so that a shared one is neither decoded nor counted
    /// item by item again, and heap-backed leaves (long strings, data), so that references to one share its
    /// storage. A small leaf costs less to decode again at each reference than a kept copy for every object would.
    var kept: [(value: PropertyList, size: Int)] = []
    /// Key arrays shared between dictionaries with the same keys (when `sharingKeys`).
    var keyLists = KeyLists()
    let sharingKeys: Bool
    /// The expansion budget.
    let maxExpandedNodes: Int
    /// Values produced so far, shared references counted as often as they are used.
    var expandedCount = 0
    /// Walks the whole graph with every check and count the decode makes, building no containers or data
    /// (``BinaryPropertyListMap``): the same error as a decode, or none, at a fraction of the allocations.
    let validating: Bool

    init(
        _ reader: ByteReader, trailer: BinaryTrailer, limits: DecodingLimits, plain: Bool = false,
        validating: Bool = false
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
    init(validated reader: ByteReader, trailer: BinaryTrailer, limits: DecodingLimits, slots: [UInt32]) {
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

    /// The object's value. On the recursion's path (value → decode → array or dictionary → value …), so it holds
    /// only the container cases: every leaf kind, with its checks and error messages, is ``leafValue(marker:at:)``,
    /// whose frame is paid once and not at every level. Unoptimised, the leaf cases here made this frame 10.6 KiB and
    /// a level of a document 15 KiB of stack, 7.7 MiB at 511 levels: nearly all of a thread's 8 MiB, in frames
    /// larger than its 4 KiB guard page, which an overflow could step over into the next thread's stack.
    private mutating func decode(object: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        let start = offset(of: object)
        let marker = reader[start]
        try count(1, at: start)
        switch marker >> 4 {
        case 0xA:
            return .array(try array(object: object, marker: marker, at: start, depth: depth))
        case 0xD:
            return .dictionary(try dictionary(object: object, marker: marker, at: start, depth: depth))
        default:
            return try leafValue(marker: marker, at: start)
        }
    }

    /// The value of the leaf object at `start` (every kind but arrays and dictionaries), already counted.
    private func leafValue(marker: UInt8, at start: Int) throws(PropertyListError) -> PropertyList {
        let info = Int(marker & 0x0F)
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
        case 0xC:
            throw unsupported("set (marker 0x\(hex(marker)))", at: start)
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
        // checked to be different strings. Each still counts one value, where it did when decoded.
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
                try countKnownKey(at: keySite)
            } else {
                let key = try key(at: keySite, depth: depth + 1)
                if !validating { keys.append(key) }
            }
            let valueSite = valueRefs + index * trailer.objectRefSize
            let entry = try value(object: try reference(at: valueSite), depth: depth + 1, referencedAt: valueSite)
            if !validating { values.append(entry) }
        }
        slots[object] &= ~Self.onPathBit
        if validating { return [:] }
        if let known { return PropertyList.Dictionary(keyTable: known, values: values) }
        return dictionary(keys: keys, values: values, refs: refs, byteCount: keyBytes, hash: hash)
    }

    // The steps of a dictionary that do not recurse, in functions of their own: their frames are not paid at every
    // level of a deep document (see ``decode(object:depth:)``).

    /// Counts a key of a dictionary whose keys are already known, where decoding it would have counted it: at the
    /// reference if it is kept, else at the object.
    private mutating func countKnownKey(at site: Int) throws(PropertyListError) {
        let keyObject = try reference(at: site)
        try count(1, at: slots[keyObject] & SharedObjects.indexMask != 0 ? site : offset(of: keyObject))
    }

    /// The key referenced at `site`, which must be a string.
    private mutating func key(at site: Int, depth: Int) throws(PropertyListError) -> String {
        let keyObject = try reference(at: site)
        guard case .string(let key) = try value(object: keyObject, depth: depth, referencedAt: site) else {
            throw PropertyListError(.nonStringKey(object: keyObject), at: .byteOffset(site))
        }
        return key
    }

    /// The dictionary of `keys` and `values` decoded from the key references at `refs`, remembered for the next
    /// dictionary with the same references when its keys are all different.
    private mutating func dictionary(keys: [String], values: [PropertyList], refs: Int, byteCount: Int, hash: UInt64)
        -> PropertyList.Dictionary
    {
        // A key given twice keeps its last value, as Apple's XML reader, CPython and go-plist do.
        let dictionary = PropertyList.Dictionary(keys: keys, values: values, uniquingKeysWith: { _, last in last })
        if dictionary.count == keys.count {
            keyLists.remember(dictionary.keyTable, refs: refs, byteCount: byteCount, hash: hash)
        }
        return dictionary
    }
}
