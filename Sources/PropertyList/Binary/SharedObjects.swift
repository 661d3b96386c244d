/// Which objects of a binary property list more than one reference points at, found before decoding so that the
/// decoder keeps (memoizes) only those: Apple's, CPython's and Hangar's writers share equal scalars but never
/// containers, so nearly every container is referenced once, and keeping each one decoded (with its size) made
/// the decoder's table of kept values, grown by doubling, a quarter of a decode's peak memory.
///
/// The scan reads every array's and dictionary's references once. It never throws: an object it cannot parse is
/// skipped (the decoder reports it when it reaches it), and a file whose containers overlap so that the scan
/// would read more references than the object area can hold gives up and marks every object shared, which is
/// what the decoder did before. A miscount costs only memory or time, never a different value or error: an
/// object not kept is decoded, and counted against the expansion budget, again at each reference.
enum SharedObjects {
    /// Set in a slot when a second reference to the object is seen.
    static let sharedBit: UInt32 = 1 << 30
    /// Set in a slot when a first reference to the object is seen.
    static let seenBit: UInt32 = 1 << 29
    /// The bits left for the 1-based index of a kept value.
    static let indexMask: UInt32 = seenBit - 1

    /// One slot per object, with ``sharedBit`` set on every object referenced more than once (the top object
    /// counts the trailer's reference), and ``seenBit`` on those referenced once.
    static func slots(_ reader: ByteReader, trailer: BinaryTrailer) -> [UInt32] {
        let count = trailer.objectCount
        // Kept values are numbered in the low 29 bits; a file with more objects (over 512 MB) keeps none.
        guard UInt64(count) < UInt64(indexMask) else { return Array(repeating: 0, count: count) }
        var slots = [UInt32](repeating: 0, count: count)
        let end = trailer.offsetTableOffset
        let refSize = trailer.objectRefSize
        // Without overlapping objects, the object area holds at most this many references.
        var budget = end / refSize
        slots.withUnsafeMutableBufferPointer { slots in
            note(trailer.topObject, in: slots)
            for object in 0..<count {
                guard let (refs, length) = references(of: object, reader, trailer: trailer) else { continue }
                guard length <= budget else {
                    for index in 0..<count { slots[index] = sharedBit }
                    return
                }
                budget -= length
                var site = refs
                for _ in 0..<length {
                    let ref = reader.bigEndianUInt(at: site, width: refSize)
                    if ref < UInt64(count) { note(Int(ref), in: slots) }
                    site += refSize
                }
            }
        }
        return slots
    }

    /// Every object marked shared: the decoder keeps every value worth keeping, as it did before this scan.
    static func allShared(_ trailer: BinaryTrailer) -> [UInt32] {
        guard UInt64(trailer.objectCount) < UInt64(indexMask) else {
            return Array(repeating: 0, count: trailer.objectCount)
        }
        return Array(repeating: sharedBit, count: trailer.objectCount)
    }

    @inline(__always)
    private static func note(_ object: Int, in slots: UnsafeMutableBufferPointer<UInt32>) {
        slots[object] |= slots[object] & seenBit == 0 ? seenBit : sharedBit
    }

    /// Where an array's or dictionary's references start and how many there are (a dictionary's keys and values
    /// both), when its header parses as the decoder parses it and they end before the offset table.
    private static func references(of object: Int, _ reader: ByteReader, trailer: BinaryTrailer) -> (Int, Int)? {
        let end = trailer.offsetTableOffset
        let width = trailer.offsetIntSize
        let start = Int(
            truncatingIfNeeded: reader.bigEndianUInt(at: trailer.offsetTableOffset + object * width, width: width))
        let marker = reader[start]
        let perEntry: Int
        switch marker >> 4 {
        case 0xA: perEntry = 1
        case 0xD: perEntry = 2
        default: return nil
        }
        var length = Int(marker & 0x0F)
        var refs = start + 1
        if length == 0x0F {
            guard start + 2 <= end else { return nil }
            let countMarker = reader[start + 1]
            guard countMarker >> 4 == 0x1, countMarker & 0x0F <= 3 else { return nil }
            let countWidth = 1 << Int(countMarker & 0x0F)
            guard start + 2 + countWidth <= end else { return nil }
            let declared = reader.bigEndianUInt(at: start + 2, width: countWidth)
            guard declared <= UInt64(end) else { return nil }
            length = Int(declared)
            refs = start + 2 + countWidth
        }
        let (total, overflow) = length.multipliedReportingOverflow(by: perEntry)
        guard !overflow, refs <= end, total <= (end - refs) / trailer.objectRefSize else { return nil }
        return (refs, total)
    }
}
