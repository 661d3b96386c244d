/// Encodes `bplist00` as Apple's writer does (research §1.8, §4.2), deterministically.
///
/// Objects are numbered in pre-order (a container, then a dictionary's keys, then its values, each
/// depth-first), with dictionary keys sorted. Equal strings, numbers, dates and data are written once and
/// shared; arrays and dictionaries never are. Integers, references and offsets take the fewest bytes.
enum BinaryWriter {
    /// The deepest nesting written: what the readers accept by default, so everything written reads back.
    static let maxDepth = DecodingLimits.default.maxDepth

    static func write(_ value: PropertyList) throws(PropertyListError) -> [UInt8] {
        var flattener = Flattener()
        _ = try flattener.flatten(value, depth: 0, path: nil)
        return flattener.emit()
    }
}

/// One object of the output, in number order.
private enum FlatObject {
    case leaf(PropertyList)
    case array([Int])
    case dictionary(keys: [Int], values: [Int])
}

/// A path through a value, built only as far as an error needs it.
final class ValuePath: Sendable {
    enum Step: Sendable {
        case key(String)
        case index(Int)
    }
    let parent: ValuePath?
    let step: Step

    init(_ parent: ValuePath?, _ step: Step) {
        self.parent = parent
        self.step = step
    }

    /// `objects[2].photo`.
    static func render(_ path: ValuePath?) -> String {
        var steps = [Step]()
        var node = path
        while let current = node {
            steps.append(current.step)
            node = current.parent
        }
        var text = ""
        for step in steps.reversed() {
            switch step {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

private struct Flattener {
    var objects: [FlatObject] = []
    /// Leaf value → its object number, so equal leaves are written once.
    var uniqued: [PropertyList: Int] = [:]

    mutating func flatten(_ value: PropertyList, depth: Int, path: @autoclosure () -> ValuePath?)
        throws(PropertyListError) -> Int
    {
        switch value {
        case .array(let elements):
            try checkDepth(depth, path: path())
            let number = objects.count
            objects.append(.array([]))
            var refs = [Int]()
            refs.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                refs.append(try flatten(element, depth: depth + 1, path: ValuePath(path(), .index(index))))
            }
            objects[number] = .array(refs)
            return number
        case .dictionary(let entries):
            try checkDepth(depth, path: path())
            let number = objects.count
            objects.append(.dictionary(keys: [], values: []))
            let sorted = KeyOrder.sortedEntries(entries)
            var keys = [Int]()
            keys.reserveCapacity(sorted.count)
            for entry in sorted { keys.append(leaf(.string(entry.key))) }
            var values = [Int]()
            values.reserveCapacity(sorted.count)
            for entry in sorted {
                values.append(try flatten(entry.value, depth: depth + 1, path: ValuePath(path(), .key(entry.key))))
            }
            objects[number] = .dictionary(keys: keys, values: values)
            return number
        case .date(let seconds) where !seconds.isFinite:
            throw PropertyListError(
                .unrepresentable, "A date is \(seconds), not a finite time", at: .path(ValuePath.render(path())))
        default:
            return leaf(value)
        }
    }

    private mutating func leaf(_ value: PropertyList) -> Int {
        if let number = uniqued[value] { return number }
        let number = objects.count
        objects.append(.leaf(value))
        uniqued[value] = number
        return number
    }

    private func checkDepth(_ depth: Int, path: ValuePath?) throws(PropertyListError) {
        guard depth < BinaryWriter.maxDepth else {
            throw PropertyListError(
                .limitExceeded, "Arrays and dictionaries nest deeper than \(BinaryWriter.maxDepth) levels",
                at: .path(ValuePath.render(path)))
        }
    }

    func emit() -> [UInt8] {
        let refSize = byteWidth(UInt64(objects.count))
        var out = BinaryFormat.header
        out.reserveCapacity(objects.count * 8 + 64)
        var offsets = [Int]()
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .leaf(let value): appendLeaf(value, to: &out)
            case .array(let refs):
                appendMarker(0xA0, count: refs.count, to: &out)
                for ref in refs { appendBigEndian(UInt64(ref), width: refSize, to: &out) }
            case .dictionary(let keys, let values):
                appendMarker(0xD0, count: keys.count, to: &out)
                for ref in keys { appendBigEndian(UInt64(ref), width: refSize, to: &out) }
                for ref in values { appendBigEndian(UInt64(ref), width: refSize, to: &out) }
            }
        }
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize, to: &out) }
        // Trailer: 5 unused bytes, sort version, offset size, ref size, count, top object (0), table offset.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendBigEndian(UInt64(objects.count), width: 8, to: &out)
        appendBigEndian(0, width: 8, to: &out)
        appendBigEndian(UInt64(tableOffset), width: 8, to: &out)
        return out
    }
}

// MARK: - Leaf encoding

private func appendLeaf(_ value: PropertyList, to out: inout [UInt8]) {
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
    case .array, .dictionary:
        assertionFailure("containers are flattened, never leaves")
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
    let isASCII = utf8.withContiguousStorageIfAvailable { bytes in
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
    out.reserveCapacity(out.count + units.count * 2)
    for unit in units {
        out.append(UInt8(unit >> 8))
        out.append(UInt8(unit & 0xFF))
    }
}

/// A marker with its count inline (0…14) or as `xF` followed by an integer object.
private func appendMarker(_ type: UInt8, count: Int, to out: inout [UInt8]) {
    if count < 15 {
        out.append(type | UInt8(count))
    } else {
        out.append(type | 0x0F)
        appendInteger(.init(UInt64(count)), to: &out)
    }
}

/// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
private func byteWidth(_ value: UInt64) -> Int {
    if value <= 0xFF { return 1 }
    if value <= 0xFFFF { return 2 }
    if value <= 0xFFFF_FFFF { return 4 }
    return 8
}

@inline(__always)
private func appendBigEndian(_ value: UInt64, width: Int, to out: inout [UInt8]) {
    var shift = (width - 1) * 8
    while shift >= 0 {
        out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        shift -= 8
    }
}
