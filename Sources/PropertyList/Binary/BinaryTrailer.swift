/// The facts the last 32 bytes give, validated.
struct BinaryTrailer {
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
