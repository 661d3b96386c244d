import Testing

@testable import PropertyList

@Suite struct BinaryWriterTests {
    /// The object bytes of a one-object file (between the header and the offset table).
    private func objectBytes(_ value: PropertyList) throws -> [UInt8] {
        let bytes = try value.encoded(as: .binary)
        let tableOffset = Int(bytes[(bytes.count - 8)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        return Array(bytes[8..<tableOffset])
    }

    static let zeros8 = [UInt8](repeating: 0, count: 8)
    static let integerEncodings: [(PropertyList.Integer, [UInt8])] = [
        (0, [0x10, 0x00]),
        (255, [0x10, 0xFF]),
        (256, [0x11, 0x01, 0x00]),
        (728, [0x11, 0x02, 0xD8]),
        (65536, [0x12, 0x00, 0x01, 0x00, 0x00]),
        (.init(UInt64(UInt32.max) + 1), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
        (.init(Int64.max), [0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (-5, [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFB]),
        (.init(UInt64(Int64.max) + 45), [0x14] + zeros8 + [0x80, 0, 0, 0, 0, 0, 0, 0x2C]),
        (.init(UInt64.max), [0x14] + zeros8 + [UInt8](repeating: 0xFF, count: 8)),
    ]

    @Test(arguments: integerEncodings)
    func integersTakeTheFewestBytes(value: PropertyList.Integer, expected: [UInt8]) throws {
        #expect(try objectBytes(.integer(value)) == expected)
    }

    @Test func stringsAreASCIIOrUTF16BigEndian() throws {
        #expect(try objectBytes("abc") == [0x53, 0x61, 0x62, 0x63])
        #expect(try objectBytes("é") == [0x61, 0x00, 0xE9])
        // U+1F680 is a surrogate pair, so the count is 2 code units.
        #expect(try objectBytes("\u{1F680}") == [0x62, 0xD8, 0x3D, 0xDE, 0x80])
    }

    @Test func countsOfFifteenOrMoreUseTheExtendedForm() throws {
        let bytes = try objectBytes(.data([UInt8](repeating: 7, count: 250)))
        #expect(Array(bytes.prefix(3)) == [0x4F, 0x10, 0xFA])
        let long = try objectBytes(.string(String(repeating: "x", count: 300)))
        #expect(Array(long.prefix(4)) == [0x5F, 0x11, 0x01, 0x2C])
    }

    @Test func equalLeavesAreWrittenOnceContainersNever() throws {
        let value: PropertyList = ["a": ["x", "x", 1, 1.0, true], "b": ["x", "x", 1, 1.0, true]]
        let bytes = try value.encoded(as: .binary)
        let objectCount = bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // root, "a", "b", two arrays, "x", 1, 1.0, true: the integer 1 and the real 1.0 stay distinct.
        #expect(objectCount == 9)
        #expect(try PropertyList(binary: bytes) == value)
    }

    @Test func referenceWidthFollowsTheObjectCount() throws {
        // 255 distinct integers + the array = 256 objects: Apple sizes refs for the count, so 2 bytes.
        let value = PropertyList.array((0..<255).map { .integer(.init($0 + 1000)) })
        let bytes = try value.encoded(as: .binary)
        #expect(bytes[bytes.count - 25] == 2, "object reference size")
        let smaller = PropertyList.array((0..<254).map { .integer(.init($0 + 1000)) })
        let smallerBytes = try smaller.encoded(as: .binary)
        #expect(smallerBytes[smallerBytes.count - 25] == 1)
    }

    @Test func keysAreSortedByUTF16CodeUnits() throws {
        // U+E000 sorts after U+1F680 in UTF-16 (0xE000 > 0xD83D), before it in code point order.
        let value: PropertyList = ["\u{E000}": 1, "\u{1F680}": 2, "b": 3, "a": 4, "B": 5]
        let decodedKeys = try keyOrder(of: value.encoded(as: .binary))
        #expect(decodedKeys == ["B", "a", "b", "\u{1F680}", "\u{E000}"])
    }

    /// The keys of the root dictionary in the order the file lists them.
    private func keyOrder(of bytes: [UInt8]) throws -> [String] {
        let count = Int(bytes[8] & 0x0F)
        let refSize = Int(bytes[bytes.count - 25])
        precondition(refSize == 1)
        let offsetSize = Int(bytes[bytes.count - 26])
        let table = Int(bytes[(bytes.count - 8)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        return try (0..<count).map { index in
            let ref = Int(bytes[9 + index])
            let offset = bytes[(table + ref * offsetSize)..<(table + ref * offsetSize + offsetSize)]
                .reduce(0) { $0 << 8 | Int($1) }
            // Re-read the key object on its own by copying it into a one-object file.
            let marker = bytes[offset]
            let length = Int(marker & 0x0F)
            let size = marker >> 4 == 0x6 ? 2 * length : length
            let object = Array(bytes[offset..<(offset + 1 + size)])
            return try PropertyList(binary: BinaryBuilder([object]).build()).stringValue ?? ""
        }
    }

    @Test func equalValuesGiveIdenticalBytes() throws {
        var left: PropertyList.Dictionary = [:]
        var right: PropertyList.Dictionary = [:]
        for index in 0..<50 { left["k\(index)"] = .integer(.init(index)) }
        for index in (0..<50).reversed() { right["k\(index)"] = .integer(.init(index)) }
        #expect(
            try PropertyList.dictionary(left).encoded(as: .binary)
                == PropertyList.dictionary(right).encoded(as: .binary))
    }

    @Test func nonFiniteDatesAreRefusedWithTheirPath() {
        let value: PropertyList = ["objects": [["when": .date(.nan)]]]
        expectError(.unrepresentable, containing: "not a finite time") { try value.encoded(as: .binary) }
        do {
            _ = try value.encoded(as: .binary)
        } catch {
            #expect(error.location == .path("objects[0].when"))
        }
    }

    @Test func nestingDeeperThanReadersAcceptIsRefused() throws {
        var value: PropertyList = "leaf"
        for _ in 0..<512 { value = [value] }
        #expect(try PropertyList(binary: value.encoded(as: .binary)) == value)
        value = [value]
        expectError(.limitExceeded, containing: "(the limit is 512)") { try value.encoded(as: .binary) }
    }

    @Test func randomValuesRoundTrip() throws {
        for seed in UInt64(1)...400 {
            var random = RandomValues(seed: seed)
            let value = random.value()
            let bytes = try value.encoded(as: .binary)
            let decoded = try PropertyList(binary: bytes)
            #expect(decoded == value, "seed \(seed)")
            #expect(try decoded.encoded(as: .binary) == bytes, "seed \(seed): not deterministic")
        }
    }
}
