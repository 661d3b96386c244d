import HangarTestSupport
import Testing

@testable import PropertyList

/// What the binary decoder does only to save memory (keeping only objects referenced more than once, sharing one
/// key array among dictionaries with the same key references) changes no value and no error: the decoder with
/// it and without it (`plain`, the decoder as it was) agree on every input, for every expansion budget.
struct DecoderMemoryTests {
    /// Both ways, with `limits`: the same value, or the same error (code, reason, message and location).
    private static func expectSameOutcome(
        _ bytes: [UInt8], limits: DecodingLimits = .default, _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let lean = Result { () throws(PropertyListError) in try BinaryReader.read(bytes, limits: limits) }
        let plain = Result { () throws(PropertyListError) in try BinaryReader.read(bytes, limits: limits, plain: true) }
        switch (lean, plain) {
        case (.success(let a), .success(let b)): #expect(a == b, comment, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)): #expect(a == b, comment, sourceLocation: sourceLocation)
        default: Issue.record("one way failed, the other did not: \(lean) / \(plain)", sourceLocation: sourceLocation)
        }
    }

    /// Records of a few kinds: dictionaries whose keys come from a small pool, so many share their key references.
    /// `small` keeps their values to scalars and short strings (for tests that decode every corruption).
    private static func records(seed: UInt64, small: Bool = false) -> PropertyList {
        var generator = SeededGenerator(seed: seed)
        var random = RandomValues(seed: seed &* 31, uids: true)
        let pool = ["id", "name", "registrationNumber", "a", "é", "日本", "\u{1F680}", "airframeHours"]
        let kinds = (0..<3).map { _ in pool.filter { _ in Bool.random(using: &generator) } }
        let count = Int.random(in: 1...(small ? 8 : 30), using: &generator)
        return .array(
            (0..<count).map { _ in
                let keys = kinds[Int.random(in: 0..<kinds.count, using: &generator)]
                return .dictionary(
                    PropertyList.Dictionary(
                        uniqueKeysWithValues: keys.map { key in
                            let value: PropertyList =
                                small ? [.integer(.init(Int64(key.utf8.count))), .string(key + key)] : random.value()
                            return (key, value)
                        }))
            })
    }

    @Test func recordsDecodeAlikeUnderEveryBudget() throws {
        for seed in UInt64(1)...120 {
            let value = Self.records(seed: seed)
            let bytes = try value.encoded(as: .binary)
            #expect(try BinaryReader.read(bytes, limits: .default) == value, "seed \(seed)")
            // Budgets around every size the decode passes through, so the budget error lands on keys skipped
            // as known, on kept keys and on decoded ones.
            var generator = SeededGenerator(seed: seed)
            for _ in 0..<12 {
                let budget = Int.random(in: 1...400, using: &generator)
                Self.expectSameOutcome(bytes, limits: DecodingLimits(maxExpandedNodes: budget), "seed \(seed)")
            }
        }
    }

    @Test func corruptedRecordsFailAlike() throws {
        for seed in UInt64(1)...6 {
            let original = try Self.records(seed: seed, small: true).encoded(as: .binary)
            for index in original.indices {
                for replacement: UInt8 in [0x00, 0x01, 0x7F, 0xD2, 0xFF, original[index] ^ 0x01] {
                    var bytes = original
                    bytes[index] = replacement
                    Self.expectSameOutcome(bytes, "seed \(seed), byte \(index) = \(replacement)")
                }
            }
        }
    }

    @Test func randomValuesDecodeAlike() throws {
        for seed in UInt64(1)...200 {
            var random = RandomValues(seed: seed, uids: true)
            let value = random.value()
            Self.expectSameOutcome(try value.encoded(as: .binary), "seed \(seed)")
        }
    }

    /// Two dictionaries with the same key references, out of order and with a repeated key: each is sorted and
    /// keeps its last value, never the first dictionary's arrangement.
    @Test func sameKeyReferencesOutOfOrderOrRepeated() throws {
        // 0: [1, 2, 3]; 1: {b: 1, a: 2}; 2: {b: 3, a: 4}; 3: {a: 1, a: 2}
        let bytes = BinaryBuilder([
            [0xA3, 1, 2, 3],
            [0xD2, 4, 5, 6, 7], [0xD2, 4, 5, 8, 9], [0xD2, 5, 5, 6, 7],
            [0x51, 0x62], [0x51, 0x61],
            [0x10, 1], [0x10, 2], [0x10, 3], [0x10, 4],
        ]).build()
        let expected: PropertyList = [["a": 2, "b": 1], ["a": 4, "b": 3], ["a": 2]]
        #expect(try PropertyList(binary: bytes) == expected)
        Self.expectSameOutcome(bytes)
    }

    /// Same keys, in order: the second dictionary takes the first one's keys, its own values.
    @Test func sameKeyReferencesInOrder() throws {
        let bytes = BinaryBuilder([
            [0xA2, 1, 2],
            [0xD2, 3, 4, 5, 6], [0xD2, 3, 4, 6, 5],
            [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2],
        ]).build()
        #expect(try PropertyList(binary: bytes) == [["a": 1, "b": 2], ["a": 2, "b": 1]])
        Self.expectSameOutcome(bytes)
        for budget in 1...12 { Self.expectSameOutcome(bytes, limits: DecodingLimits(maxExpandedNodes: budget)) }
    }

    /// A container referenced twice is still decoded once and counted twice; a cycle is still a cycle.
    @Test func sharedContainersAndCycles() throws {
        let shared = BinaryBuilder([[0xA2, 1, 1], [0xA1, 2], [0x10, 7]]).build()
        #expect(try PropertyList(binary: shared) == [[7], [7]])
        for budget in 1...6 { Self.expectSameOutcome(shared, limits: DecodingLimits(maxExpandedNodes: budget)) }
        let cycle = BinaryBuilder([[0xA1, 1], [0xA1, 0]]).build()
        expectError(.malformed, containing: "contains itself") { try PropertyList(binary: cycle) }
        Self.expectSameOutcome(cycle)
    }

    /// Objects that overlap so much that the scan would read more references than the object area holds: the
    /// scan gives up (every object shared, as before) instead of taking quadratic time.
    @Test func overlappingContainersStayLinear() throws {
        // 3,000 offset-table entries, all but one pointing at one array of 3,000 references to object 1.
        let count = 3000
        var bytes = Array("bplist00".utf8)
        bytes += [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        bytes += (0..<count).flatMap { _ in [UInt8(0), 1] }
        let integerOffset = bytes.count
        bytes += [0x10, 7]
        let tableOffset = bytes.count
        for object in 0..<count {
            let offset = object == 1 ? integerOffset : 8
            bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)]
        }
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]
        bytes += BinaryBuilder.bigEndian(UInt64(count), width: 8) + BinaryBuilder.bigEndian(0, width: 8)
        bytes += BinaryBuilder.bigEndian(UInt64(tableOffset), width: 8)
        let value = try PropertyList(binary: bytes)
        #expect(value.arrayValue?.count == count)
        Self.expectSameOutcome(bytes)
    }
}
