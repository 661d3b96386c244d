extension PropertyList {
    /// Re-encodes a binary property list keeping the file's own object graph: each dictionary's entries in the
    /// order the file stores them, and one object for each object the file shares, numbered and encoded as
    /// Apple's writer numbers and encodes them.
    ///
    /// ``encoded(as:options:)`` writes a value, which knows neither the order a writer put a dictionary's keys in
    /// (Apple's writer takes a dictionary's hash order) nor which equal strings were
    /// one object (Apple's writer shares an object it meets twice, not two equal ones). A file Apple's writer
    /// wrote (a keyed archive, for one) comes back byte for byte from this; any other file comes back with the
    /// widths, numbering and encodings Apple's writer would choose for the same graph.
    ///
    /// The file is decoded first, with `limits`, so bad input fails exactly as ``init(binary:limits:)`` does.
    /// When the graph cannot be kept (a dictionary names a key twice), or the result would not read back as the
    /// same value, the value is written as ``encoded(as:options:)`` writes it with its keys in the file's order.
    public static func rewrittenBinary(
        _ bytes: [UInt8], limits: DecodingLimits = .default
    ) throws(PropertyListError) -> [UInt8] {
        let value = try BinaryReader.read(bytes, limits: limits)
        let kept = try withByteReader(bytes) { reader in BinaryRewriter.rewrite(reader, limits: limits) }
        if let kept, (try? BinaryReader.read(kept, limits: limits)) == value { return kept }
        return try BinaryWriter.write(value, keyOrder: .kept)
    }
}

/// The file's graph written again as `CFBinaryPList.c`'s `_flattenPlist` numbers it: pre-order, a dictionary's
/// keys before its values, a container a new object at each reference, a leaf one object for each object of the
/// file (CF shares the same object, not equal ones).
private struct BinaryRewriter {
    let reader: ByteReader
    let trailer: BinaryTrailer
    var decoder: BinaryDecoder
    /// The new number of each of the file's leaves already planned, or -1.
    var leafNumbers: [Int32]
    /// For each new object: the file's object, and for a container the start of its new references.
    var objects: [(source: Int, references: Int)] = []
    /// Every container's new references, each container's run contiguous (a dictionary: keys, then values).
    var references: [Int] = []

    /// Nil when the file does not decode, or its graph cannot be kept.
    static func rewrite(_ reader: ByteReader, limits: DecodingLimits) -> [UInt8]? {
        guard let trailer = try? BinaryTrailer(reader, limits: limits),
            let decoder = try? BinaryDecoder(reader, trailer: trailer, limits: limits, plain: true),
            trailer.objectCount < Int(Int32.max)
        else { return nil }
        var rewriter = BinaryRewriter(
            reader: reader, trailer: trailer, decoder: decoder,
            leafNumbers: Array(repeating: -1, count: trailer.objectCount))
        // The walk is bounded: the file decoded within `limits`, so its expansion is within the budget.
        guard rewriter.plan(trailer.topObject, depth: 0) != nil, rewriter.objects.count <= limits.maxExpandedNodes
        else { return nil }
        return rewriter.emit()
    }

    /// An array's or dictionary's entry count and where its references start; nil for a leaf.
    func container(_ object: Int) -> (isDictionary: Bool, count: Int, refs: Int)? {
        let start = Int(
            truncatingIfNeeded: reader.bigEndianUInt(
                at: trailer.offsetTableOffset + object * trailer.offsetIntSize, width: trailer.offsetIntSize))
        let marker = reader[start]
        guard marker >> 4 == 0xA || marker >> 4 == 0xD else { return nil }
        var count = Int(marker & 0x0F)
        var refs = start + 1
        if count == 0x0F {
            let width = 1 << Int(reader[start + 1] & 0x0F)
            count = Int(truncatingIfNeeded: reader.bigEndianUInt(at: start + 2, width: width))
            refs = start + 2 + width
        }
        return (marker >> 4 == 0xD, count, refs)
    }

    func reference(_ site: Int) -> Int {
        Int(truncatingIfNeeded: reader.bigEndianUInt(at: site, width: trailer.objectRefSize))
    }

    /// Numbers `object` (and what it holds) and gives its new number; nil when the graph cannot be kept.
    mutating func plan(_ object: Int, depth: Int) -> Int? {
        guard object < trailer.objectCount, depth <= 10_000 else { return nil }
        guard let (isDictionary, count, refs) = container(object) else {
            if leafNumbers[object] >= 0 { return Int(leafNumbers[object]) }
            let number = objects.count
            objects.append((object, 0))
            leafNumbers[object] = Int32(number)
            return number
        }
        let number = objects.count
        let slots = isDictionary ? 2 * count : count
        let first = references.count
        objects.append((object, first))
        references.append(contentsOf: repeatElement(0, count: slots))
        if isDictionary {
            // The keys first, as CF's writer numbers them; a key named twice (scalar for scalar) is one entry in
            // the value, so such a file is written from the value.
            var seen = Set<[UInt8]>()
            for index in 0..<count {
                let key = reference(refs + index * trailer.objectRefSize)
                guard key < trailer.objectCount, container(key) == nil,
                    case .string(let text)? = try? decoder.leaf(object: key),
                    seen.insert(Array(text.utf8)).inserted, let keyNumber = plan(key, depth: depth + 1)
                else { return nil }
                references[first + index] = keyNumber
            }
        }
        let valueRefs = isDictionary ? refs + count * trailer.objectRefSize : refs
        for index in 0..<count {
            guard let child = plan(reference(valueRefs + index * trailer.objectRefSize), depth: depth + 1) else {
                return nil
            }
            references[first + (isDictionary ? count : 0) + index] = child
        }
        return number
    }

    mutating func emit() -> [UInt8]? {
        let refSize = byteWidth(UInt64(objects.count))
        var out = BinaryFormat.header
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for (source, first) in objects {
            offsets.append(out.count)
            guard let (isDictionary, count, _) = container(source) else {
                guard let leaf = try? decoder.leaf(object: source) else { return nil }
                appendLeaf(leaf, to: &out)
                continue
            }
            appendMarker(isDictionary ? 0xD0 : 0xA0, count: count, to: &out)
            for index in first..<first + (isDictionary ? 2 * count : count) {
                appendBigEndian(UInt64(references[index]), width: refSize, to: &out)
            }
        }
        appendOffsetTableAndTrailer(offsets, refSize: refSize, to: &out)
        return out
    }
}
