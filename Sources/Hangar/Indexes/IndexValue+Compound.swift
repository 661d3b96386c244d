package import PropertyList

// Compound values (several values per entry, compared component by component) and reading values back.
//
// A compound value is its components' encodings (``IndexValue/encoded(_:)``), each with every `0x00` byte written
// as `0x00 0xFF` and followed by `0x00 0x00`. Byte order is then component order: a component that ends sorts
// before one that goes on (`0x00 0x00` is below every escaped byte), and the values that begin with a prefix of
// components are exactly those from the prefix's encoding up to its ``IndexValue/successor(ofPrefix:)``.

extension IndexValue {
    /// The stored form of a compound value whose components are already encoded.
    package static func compound(_ components: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for component in components {
            for byte in component {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
            bytes.append(0)
            bytes.append(0)
        }
        return bytes
    }

    /// The first value after every value that begins with the compound prefix `prefix` (an encoding made by
    /// ``compound(_:)``, which ends `0x00 0x00`).
    package static func successor(ofPrefix prefix: [UInt8]) -> [UInt8] {
        var bytes = prefix
        if !bytes.isEmpty { bytes.removeLast() }
        bytes.append(1)
        return bytes
    }

    /// The components of a compound value (the encodings ``compound(_:)`` joined); `nil` when the bytes are not one.
    package static func components(ofCompound bytes: [UInt8]) -> [[UInt8]]? {
        var components: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0 else {
                current.append(byte)
                continue
            }
            guard index < bytes.count else { return nil }
            let next = bytes[index]
            index += 1
            switch next {
            case 0xFF: current.append(0)
            case 0:
                components.append(current)
                current = []
            default: return nil
            }
        }
        return current.isEmpty ? components : nil
    }

    /// The value an encoding stands for, `nil` when the bytes are not one. Numbers come back as integers when
    /// they are whole and fit (−2^63 … 2^64−1), as reals otherwise: `3.0` is stored as `3` is, and reads as `3`.
    package static func decoded(_ bytes: [UInt8]) -> PropertyList? {
        guard let tag = bytes.first else { return nil }
        let rest = Array(bytes.dropFirst())
        switch tag {
        case booleanTag: return rest.count == 1 && rest[0] <= 1 ? .boolean(rest[0] == 1) : nil
        case numberTag: return decodedNumber(rest)
        case dateTag:
            guard let number = decodedNumber(rest) else { return nil }
            switch number {
            case .real(let seconds): return .date(seconds)
            case .integer(let integer):
                if let signed = integer.int64Value { return .date(Double(signed)) }
                return integer.uint64Value.map { .date(Double($0)) }
            default: return nil
            }
        case stringTag: return String(validating: rest, as: UTF8.self).map(PropertyList.string)
        case dataTag: return .data(rest)
        case uidTag:
            guard rest.count == 4 else { return nil }
            return .uid(rest.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        default: return nil
        }
    }

    /// A compound value read back as an array of its components.
    package static func decodedCompound(_ bytes: [UInt8]) -> PropertyList? {
        guard let parts = components(ofCompound: bytes) else { return nil }
        var values: [PropertyList] = []
        for part in parts {
            guard let value = decoded(part) else { return nil }
            values.append(value)
        }
        return .array(values)
    }

    private static func decodedNumber(_ bytes: [UInt8]) -> PropertyList? {
        guard let signClass = bytes.first else { return nil }
        switch signClass {
        case 1 where bytes.count == 1: return .real(-.infinity)
        case 3 where bytes.count == 1: return .integer(0)
        case 5 where bytes.count == 1: return .real(.infinity)
        case 2, 4:
            guard bytes.count == 11 else { return nil }
            let isNegative = signClass == 2
            let body = bytes.dropFirst().map { isNegative ? ~$0 : $0 }
            let exponent = (Int(body[0]) << 8 | Int(body[1])) - 2_000
            let fraction = body[2...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return number(exponent: exponent, fraction: fraction, negative: isNegative)
        default: return nil
        }
    }

    private static func number(exponent: Int, fraction: UInt64, negative: Bool) -> PropertyList? {
        // Whole, and within the integers a property list holds: an integer.
        if (0...63).contains(exponent), fraction << UInt64(exponent) == 0 {
            let magnitude = (UInt64(1) << UInt64(exponent)) | (fraction >> UInt64(64 - exponent))
            if !negative { return .integer(PropertyList.Integer(magnitude)) }
            if magnitude <= UInt64(Int64.max) + 1 {
                return .integer(PropertyList.Integer(Int64(bitPattern: 0 &- magnitude)))
            }
        }
        guard (-1074...1023).contains(exponent), fraction & 0xFFF == 0 else { return nil }
        let significand = Double(bitPattern: (1023 << 52) | (fraction >> 12))
        return .real(Double(sign: negative ? .minus : .plus, exponent: exponent, significand: significand))
    }
}
