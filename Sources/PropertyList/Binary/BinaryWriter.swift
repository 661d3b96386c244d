/// Encodes `bplist00` as Apple's writer does (Documentation/bplist-format.md §1.8, §4.2), deterministically.
///
/// Objects are numbered in pre-order (a container, then a dictionary's keys, then its values, each
/// depth-first), with dictionary keys sorted or in their kept order. Equal strings, numbers, dates and data are written once and
/// shared; arrays and dictionaries never are, nor are UIDs (CF's writer appends a UID object at each visit, as
/// `plistlib` does for distinct `UID` instances). Integers, UIDs, references and offsets take the fewest bytes.
///
/// Two passes: `ObjectPlan` numbers the objects and records, per object, either the leaf to write or the
/// run of child numbers in one shared arena; `emit` then writes them in number order.
enum BinaryWriter {
    static func write(_ value: PropertyList, keyOrder: EncodingOptions.KeyOrder) throws(PropertyListError) -> [UInt8] {
        var plan = ObjectPlan()
        try ValueWalk.walk(value, keyOrder: keyOrder, with: &plan)
        return plan.emit()
    }
}

/// What to write for each object number.
private struct ObjectRecord {
    /// `0` for a leaf, else the container's marker type (`0xA0` array, `0xD0` dictionary).
    let marker: UInt8
    /// A leaf's index in `leaves`, or the start of a container's references in `references`.
    let start: Int
    /// A container's entry count (a dictionary has twice as many references).
    let count: Int
}

/// Numbers the objects as the walk meets them (pre-order) and records each container's child numbers.
private struct ObjectPlan: ValueVisitor {
    var records: [ObjectRecord] = []
    var leaves: [PropertyList] = []
    /// Every container's child numbers, each container's run contiguous (a dictionary: keys, then values).
    var references: [Int] = []
    var uniquing = LeafTable()
    /// Bytes the leaves take, to size the output once.
    var leafBytes = 0
    /// For each open container, the slot in `references` its next child's number goes to.
    private var nextSlots: [Int] = []

    /// Puts a child's number in its parent's next slot.
    @inline(__always)
    private mutating func place(_ number: Int) {
        guard let slot = nextSlots.last else { return }
        references[slot] = number
        nextSlots[nextSlots.count - 1] = slot + 1
    }

    mutating func visitScalar(_ value: PropertyList, depth: Int) throws(WriteFailure) {
        if case .date(let seconds) = value, !seconds.isFinite {
            throw WriteFailure(.nonFiniteDate(seconds, writing: true))
        }
        place(leaf(value))
    }

    mutating func beginArray(_ elements: [PropertyList], depth: Int) {
        let number = records.count
        records.append(ObjectRecord(marker: 0xA0, start: references.count, count: elements.count))
        place(number)
        nextSlots.append(references.count)
        references.append(contentsOf: repeatElement(0, count: elements.count))
    }

    mutating func endArray(_ elements: [PropertyList], depth: Int) {
        nextSlots.removeLast()
    }

    mutating func beginDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        let number = records.count
        let start = references.count
        records.append(ObjectRecord(marker: 0xD0, start: start, count: entries.count))
        place(number)
        references.append(contentsOf: repeatElement(0, count: 2 * entries.count))
        // The keys are numbered before any value, as Apple's writer does.
        for (index, key) in entries.keys.enumerated() {
            references[start + index] = leaf(.string(key))
        }
        nextSlots.append(start + entries.count)
    }

    mutating func endDictionary(_ entries: PropertyList.Dictionary, depth: Int) {
        nextSlots.removeLast()
    }

    /// The object number of an equal leaf already planned, or a new one; a UID is always a new one.
    private mutating func leaf(_ value: PropertyList) -> Int {
        if case .uid = value {
            let number = records.count
            records.append(ObjectRecord(marker: 0, start: leaves.count, count: 0))
            leaves.append(value)
            leafBytes += 5
            return number
        }
        let hash = uniquing.hash(value)
        if let number = uniquing.find(value, hash: hash, equal: { leaves[records[$0].start] == $1 }) {
            return number
        }
        let number = records.count
        records.append(ObjectRecord(marker: 0, start: leaves.count, count: 0))
        leaves.append(value)
        leafBytes += Self.estimatedSize(value)
        uniquing.insert(number, hash: hash)
        return number
    }

    private static func estimatedSize(_ value: PropertyList) -> Int {
        switch value {
        case .string(let string): 10 + 2 * string.utf8.count
        case .data(let bytes): 10 + bytes.count
        default: 17
        }
    }

    func emit() -> [UInt8] {
        let refSize = byteWidth(UInt64(records.count))
        var out = BinaryFormat.header
        out.reserveCapacity(8 + leafBytes + references.count * refSize + records.count * 13 + 32)
        var offsets = [Int]()
        offsets.reserveCapacity(records.count)
        for record in records {
            offsets.append(out.count)
            if record.marker == 0 {
                appendLeaf(leaves[record.start], to: &out)
                continue
            }
            appendMarker(record.marker, count: record.count, to: &out)
            let end = record.start + (record.marker == 0xD0 ? 2 * record.count : record.count)
            for index in record.start..<end {
                appendBigEndian(UInt64(references[index]), width: refSize, to: &out)
            }
        }
        appendOffsetTableAndTrailer(offsets, refSize: refSize, to: &out)
        return out
    }
}

// MARK: - Uniquing

/// An open-addressing table from leaf values to object numbers, with a seeded fast hash.
///
/// Swift's `Dictionary` would do, but SipHash over every string made it most of the writer's time; the
/// numbering does not depend on the hash, so output stays deterministic whatever the seed.
struct LeafTable {
    private var numbers: [Int32]
    private var hashes: [UInt64]
    private var mask: Int
    private var count = 0
    private let seed: UInt64

    init() {
        numbers = Array(repeating: -1, count: 64)
        hashes = Array(repeating: 0, count: 64)
        mask = 63
        seed = UInt64.random(in: 0 ... .max)
    }

    func hash(_ value: PropertyList) -> UInt64 {
        switch value {
        case .string(let string): UTF8Bytes.fastHash(string, seed: seed)
        case .data(let bytes): UTF8Bytes.fastHash(bytes, seed: seed ^ 0x5555)
        case .integer(let integer): UTF8Bytes.mix(integer.bits ^ seed, integer.isNegative ? 0x9E37_79B9 : 0x7F4A_7C15)
        case .real(let real): UTF8Bytes.mix(real.bitPattern ^ seed, 0xBF58_476D_1CE4_E5B9)
        case .date(let seconds): UTF8Bytes.mix(seconds.bitPattern ^ seed, 0x94D0_49BB_1331_11EB)
        case .boolean(let flag): flag ? 1 : 2
        case .uid(let uid): UTF8Bytes.mix(UInt64(uid) ^ seed, 0xD6E8_FEB8_6659_FD93)
        case .array, .dictionary: 0
        }
    }

    func find(_ value: PropertyList, hash: UInt64, equal: (Int, PropertyList) -> Bool) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while numbers[slot] >= 0 {
            if hashes[slot] == hash, equal(Int(numbers[slot]), value) { return Int(numbers[slot]) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    mutating func insert(_ number: Int, hash: UInt64) {
        if 2 * (count + 1) > numbers.count { grow() }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while numbers[slot] >= 0 { slot = (slot + 1) & mask }
        numbers[slot] = Int32(truncatingIfNeeded: number)
        hashes[slot] = hash
        count += 1
    }

    private mutating func grow() {
        let oldNumbers = numbers
        let oldHashes = hashes
        numbers = Array(repeating: -1, count: oldNumbers.count * 2)
        hashes = Array(repeating: 0, count: oldNumbers.count * 2)
        mask = numbers.count - 1
        for (index, number) in oldNumbers.enumerated() where number >= 0 {
            var slot = Int(truncatingIfNeeded: oldHashes[index]) & mask
            while numbers[slot] >= 0 { slot = (slot + 1) & mask }
            numbers[slot] = number
            hashes[slot] = oldHashes[index]
        }
    }
}

// MARK: - Leaf encoding

func appendLeaf(_ value: PropertyList, to out: inout [UInt8]) {
    switch value {
    case .boolean(let flag):
        out.append(flag ? 0x09 : 0x08)
    case .integer(let integer):
        appendInteger(integer, to: &out)
    case .real(let real):
        out.append(0x23)
        appendBigEndian(real.bitPattern, width: 8, to: &out)
    case .date(let seconds):
        out.append(0x33)
        appendBigEndian(seconds.bitPattern, width: 8, to: &out)
    case .data(let bytes):
        appendMarker(0x40, count: bytes.count, to: &out)
        out.append(contentsOf: bytes)
    case .string(let string):
        appendString(string, to: &out)
    case .uid(let uid):
        // CF's `_appendUID`: `8n` and n+1 = 1, 2 or 4 bytes.
        let width = byteWidth(UInt64(uid))
        out.append(0x80 | UInt8(width - 1))
        appendBigEndian(UInt64(uid), width: width, to: &out)
    case .array, .dictionary:
        assertionFailure("containers are planned as records, never as leaves")
    }
}

/// Negative values take 8 bytes (`13`); others the fewest of 1, 2, 4, 8; 2^63 and above 16 (`14`, high half zero).
private func appendInteger(_ integer: PropertyList.Integer, to out: inout [UInt8]) {
    if integer.isNegative {
        out.append(0x13)
        appendBigEndian(integer.bits, width: 8, to: &out)
    } else if integer.bits > UInt64(Int64.max) {
        out.append(0x14)
        appendBigEndian(0, width: 8, to: &out)
        appendBigEndian(integer.bits, width: 8, to: &out)
    } else {
        let width = byteWidth(integer.bits)
        out.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(integer.bits, width: width, to: &out)
    }
}

/// ASCII as `5n` with one byte a character; anything else as `6n`, UTF-16 big-endian.
private func appendString(_ string: String, to out: inout [UInt8]) {
    let utf8 = string.utf8
    let isASCII =
        utf8.withContiguousStorageIfAvailable { bytes in
            var combined: UInt8 = 0
            for byte in bytes { combined |= byte }
            return combined < 0x80
        } ?? utf8.allSatisfy { $0 < 0x80 }
    if isASCII {
        appendMarker(0x50, count: utf8.count, to: &out)
        out.append(contentsOf: utf8)
        return
    }
    let units = string.utf16
    appendMarker(0x60, count: units.count, to: &out)
    for unit in units {
        out.append(UInt8(truncatingIfNeeded: unit >> 8))
        out.append(UInt8(truncatingIfNeeded: unit))
    }
}

/// A marker with its count inline (0…14) or as `xF` followed by an integer object.
/// Ends a binary property list whose objects start at `offsets` (the top object first): the offset table, then
/// the trailer (5 unused bytes, sort version, offset size, ref size, object count, top object 0, table offset).
func appendOffsetTableAndTrailer(_ offsets: [Int], refSize: Int, to out: inout [UInt8]) {
    let tableOffset = out.count
    let offsetSize = byteWidth(UInt64(tableOffset))
    for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize, to: &out) }
    out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
    appendBigEndian(UInt64(offsets.count), width: 8, to: &out)
    appendBigEndian(0, width: 8, to: &out)
    appendBigEndian(UInt64(tableOffset), width: 8, to: &out)
}

func appendMarker(_ type: UInt8, count: Int, to out: inout [UInt8]) {
    if count < 15 {
        out.append(type | UInt8(count))
    } else {
        out.append(type | 0x0F)
        appendInteger(.init(UInt64(count)), to: &out)
    }
}

/// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
func byteWidth(_ value: UInt64) -> Int {
    if value <= 0xFF { return 1 }
    if value <= 0xFFFF { return 2 }
    if value <= 0xFFFF_FFFF { return 4 }
    return 8
}

@inline(__always)
func appendBigEndian(_ value: UInt64, width: Int, to out: inout [UInt8]) {
    switch width {
    case 1:
        out.append(UInt8(truncatingIfNeeded: value))
    case 2:
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    default:
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
