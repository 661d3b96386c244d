/// Builds binary plists object by object, so a test can craft exactly the defect it means to exercise.
struct BinaryBuilder {
    /// Each object's bytes (marker and payload), in object-number order.
    var objects: [[UInt8]]
    var refSize = 1
    var offsetSize = 1
    var topObject: UInt64 = 0
    /// Bytes put between the offset table and the trailer (none in a valid file).
    var gap: [UInt8] = []
    /// Overrides for trailer fields, to write lies.
    var declaredObjectCount: UInt64?
    var declaredTableOffset: UInt64?

    init(_ objects: [[UInt8]], refSize: Int = 1, offsetSize: Int = 1) {
        self.objects = objects
        self.refSize = refSize
        self.offsetSize = offsetSize
    }

    func build() -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets = [UInt64]()
        for object in objects {
            offsets.append(UInt64(out.count))
            out += object
        }
        let tableOffset = UInt64(out.count)
        for offset in offsets { out += Self.bigEndian(offset, width: offsetSize) }
        out += gap
        out += [0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: offsetSize), UInt8(truncatingIfNeeded: refSize)]
        out += Self.bigEndian(declaredObjectCount ?? UInt64(objects.count), width: 8)
        out += Self.bigEndian(topObject, width: 8)
        out += Self.bigEndian(declaredTableOffset ?? tableOffset, width: 8)
        return out
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    /// An ASCII string object.
    static func ascii(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        precondition(bytes.count < 15, "test strings are short")
        return [0x50 | UInt8(bytes.count)] + bytes
    }
}
