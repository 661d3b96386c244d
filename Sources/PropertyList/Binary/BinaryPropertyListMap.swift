/// A binary property list read on demand: the file is checked once, whole, exactly as ``PropertyList/init(binary:limits:)``
/// checks it (the same error for the same bytes, or none), without building its values; then objects are read by
/// number as they are asked for, so a reader that wants three fields of a dictionary decodes those three.
///
/// In the spirit of swift-foundation's `BPlistMap`. The checking pass is the decoder itself in a mode that builds
/// no containers or data, so every limit (depth, object count, offsets, cycles, the expansion budget) holds here
/// as it holds there. Every later read is of an object that pass reached, so it cannot fail; a value read through
/// the map equals the same object's value in the decoded tree.
package struct BinaryPropertyListMap: Sendable {
    /// The kind of an object, as far as a reader choosing how to read it needs.
    package enum Kind: Sendable, Equatable {
        case dictionary, array, other
    }

    private let bytes: [UInt8]
    private let trailer: BinaryTrailer
    private let limits: DecodingLimits
    /// The checking decoder's slots: the shared-object bits as first computed (so that a later decode keeps the
    /// same objects), with the numbers of the values it kept (stand-ins), masked off before any decode.
    private let slots: [UInt32]

    /// Checks `bytes` whole; throws what decoding them throws.
    package init(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(PropertyListError) {
        let (trailer, slots) = try withByteReader(bytes) {
            (reader) throws(PropertyListError) -> (BinaryTrailer, [UInt32]) in
            let trailer = try BinaryTrailer(reader, limits: limits)
            var decoder = try BinaryDecoder(reader, trailer: trailer, limits: limits, validating: true)
            _ = try decoder.decodeRoot()
            return (trailer, decoder.slots)
        }
        self.bytes = bytes
        self.trailer = trailer
        self.limits = limits
        self.slots = slots
    }

    /// The top object's number.
    package var root: Int { trailer.topObject }

    /// What `object` is.
    package func kind(of object: Int) -> Kind {
        bytes.withUnsafeBufferPointer { buffer in
            switch buffer[offset(of: object, in: buffer)] >> 4 {
            case 0xD: .dictionary
            case 0xA: .array
            default: .other
            }
        }
    }

    /// The value of `object`, decoded (a container with everything in it), equal to its value in the tree.
    package func value(of object: Int) throws(PropertyListError) -> PropertyList {
        // A scalar's decode reads no slots; a container's needs them without the checking pass's kept values.
        let slots = kind(of: object) == .other ? [] : slots.map { $0 & ~SharedObjects.indexMask }
        return try withByteReader(bytes) { (reader) throws(PropertyListError) -> PropertyList in
            var decoder = BinaryDecoder(validated: reader, trailer: trailer, limits: limits, slots: slots)
            return try decoder.leaf(object: object)
        }
    }

    /// The elements of the array `object`, as object numbers; empty when it is not an array.
    package func elements(of object: Int) -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            let start = offset(of: object, in: buffer)
            guard buffer[start] >> 4 == 0xA else { return [] }
            let (count, refs) = countAndPayload(at: start, in: buffer)
            let width = trailer.objectRefSize
            var result: [Int] = []
            result.reserveCapacity(count)
            for index in 0..<count {
                result.append(Int(truncatingIfNeeded: bigEndian(buffer, at: refs + index * width, width: width)))
            }
            return result
        }
    }

    /// The value under `key` in the dictionary `object`, as an object number: `nil` when absent or when `object`
    /// is not a dictionary. A key given twice is its last value, as in the decoded tree; keys match scalar for
    /// scalar, as ``PropertyList/Dictionary`` keys do.
    package func lookup(_ key: String, in object: Int) -> Int? {
        var key = key
        return key.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { buffer -> Int? in
                let start = offset(of: object, in: buffer)
                guard buffer[start] >> 4 == 0xD else { return nil }
                let (count, refs) = countAndPayload(at: start, in: buffer)
                let width = trailer.objectRefSize
                var index = count
                // From the last entry back: a key given twice is its last value.
                while index > 0 {
                    index -= 1
                    let keyObject = reference(in: buffer, at: refs + index * width, width: width)
                    if keyMatches(keyObject, wanted, in: buffer) {
                        return reference(in: buffer, at: refs + (count + index) * width, width: width)
                    }
                }
                return nil
            }
        }
    }

    // MARK: Reading validated objects

    private func offset(of object: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Int {
        let width = trailer.offsetIntSize
        return Int(truncatingIfNeeded: bigEndian(buffer, at: trailer.offsetTableOffset + object * width, width: width))
    }

    @inline(__always)
    private func bigEndian(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        var index = offset
        while index < offset + width {
            value = value << 8 | UInt64(buffer[index])
            index += 1
        }
        return value
    }

    /// The count of a validated string, data or container object at `start`, and where its payload starts.
    private func countAndPayload(at start: Int, in buffer: UnsafeBufferPointer<UInt8>) -> (count: Int, payload: Int) {
        let nibble = Int(buffer[start] & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        let width = 1 << Int(buffer[start + 1] & 0x0F)
        return (Int(truncatingIfNeeded: bigEndian(buffer, at: start + 2, width: width)), start + 2 + width)
    }

    @inline(__always)
    private func reference(in buffer: UnsafeBufferPointer<UInt8>, at site: Int, width: Int) -> Int {
        Int(truncatingIfNeeded: bigEndian(buffer, at: site, width: width))
    }

    /// Whether the key object (a validated string) is `wanted`'s scalars: ASCII bytes compared in place, any
    /// other string decoded as the decoder decodes it and compared by its UTF-8.
    private func keyMatches(_ object: Int, _ wanted: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        let start = offset(of: object, in: buffer)
        let marker = buffer[start]
        let (count, payload) = countAndPayload(at: start, in: buffer)
        switch marker >> 4 {
        case 0x5:
            // A byte below 0x80 is one UTF-8 byte (ASCII), one above two (Latin-1): equal bytes are the same
            // string only when all are ASCII, and a string of fewer bytes matches only through Latin-1.
            guard count <= wanted.count else { return false }
            let stored = UnsafeBufferPointer(rebasing: buffer[payload..<(payload + count)])
            if count == wanted.count, stored.elementsEqual(wanted) { return !stored.contains { $0 >= 0x80 } }
            guard stored.contains(where: { $0 >= 0x80 }) else { return false }
        case 0x6:
            guard count <= wanted.count else { return false }  // Every UTF-16 unit is at least one UTF-8 byte.
        default:
            return false  // Not a string: the check made sure no key is one.
        }
        guard case .string(var key)? = try? value(of: object) else { return false }
        return key.withUTF8 { $0.elementsEqual(wanted) }
    }
}
