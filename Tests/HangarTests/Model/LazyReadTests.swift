import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar

/// Typed loads straight from the stored bytes (``DictionaryReadable``, ``BinaryPropertyListMap``) against the
/// tree path they replace: for random documents, random corruptions, wrong types, extra keys and hostile bytes,
/// both give equal models or equal errors.
@Suite struct LazyReadTests {
    struct Engine: DictionaryReadable, Equatable {
        var kind: String
        var power: Int?

        init(reader: DictionaryReader) throws(HangarError) {
            kind = try reader.read("kind")
            power = try reader.readIfPresent("power")
        }

        var propertyListRepresentation: PropertyList {
            var writer = DictionaryWriter()
            writer.set("kind", kind)
            writer.set("power", power)
            return writer.propertyList
        }
    }

    /// A model using every read a reader offers.
    struct Craft: DictionaryReadable, VersionedDocument, Equatable {
        static let collection = "crafts"
        static let format = DocumentFormat(current: DocumentVersion(major: 2, minor: 1), oldestReadableMajor: 2)

        enum Key: String, CaseIterable {
            case name, hours, active, built, photo, tags, engines, main, counts, raw, cockpit, seats, grid
        }

        var name: String
        var hours: Double
        var active: Bool?
        var built: Date?
        var photo: Data?
        var tags: [String]?
        var engines: [Engine]
        var main: Engine?
        var counts: [String: Int]?
        var raw: [UInt8]?
        var cockpitName: String?
        var seats: UInt8?
        var grid: [[Engine]]?
        var rawValue: PropertyList?
        var extra: PropertyList.Dictionary
        var all: PropertyList.Dictionary?

        init(reader: DictionaryReader) throws(HangarError) {
            name = try reader.read(Key.name)
            hours = try reader.read(Key.hours)
            active = try reader.readIfPresent(Key.active)
            built = try reader.readIfPresent(Key.built)
            photo = try reader.readIfPresent(Key.photo)
            tags = try reader.readIfPresent(Key.tags)
            engines = try reader.read(Key.engines)
            main = try reader.readIfPresent(Key.main)
            counts = try reader.readIfPresent(Key.counts)
            raw = try reader.readBytesIfPresent(Key.raw)
            cockpitName = try reader.nestedIfPresent(Key.cockpit)?.readIfPresent("name")
            seats = try reader.readIfPresent(Key.seats)
            grid = try reader.readIfPresent(Key.grid)
            rawValue = reader["anything"]
            extra = reader.unknownEntries(Key.self)
            all = reader.contains("all") ? reader.entries : nil
        }

        var propertyListRepresentation: PropertyList { .dictionary(extra) }
    }

    // MARK: Random documents

    private static func scalar(_ random: inout SeededGenerator) -> PropertyList {
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            .string(
                ["Ada", "Grace Hopper, the admiral", "Zoë ✈️", "", "kind", "x\u{301}"].randomElement(using: &random)
                    ?? "")
        case 1: .integer(.init(Int64.random(in: -300...300, using: &random)))
        case 2: .integer(.init(UInt64.max - UInt64.random(in: 0...3, using: &random)))
        case 3: .real(Double.random(in: -1e6...1e6, using: &random))
        case 4: .boolean(Bool.random(using: &random))
        case 5: .date(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
        case 6:
            .data((0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 7: .uid(UInt32.random(in: 0...9, using: &random))
        default: .integer(.init(Int64.random(in: 0...300, using: &random)))
        }
    }

    private static func anyValue(_ random: inout SeededGenerator, depth: Int = 0) -> PropertyList {
        guard depth < 3, Int.random(in: 0..<4, using: &random) == 0 else { return scalar(&random) }
        let count = Int.random(in: 0...3, using: &random)
        if Bool.random(using: &random) {
            return .array((0..<count).map { _ in anyValue(&random, depth: depth + 1) })
        }
        var entries: PropertyList.Dictionary = [:]
        for _ in 0..<count {
            entries[["kind", "power", "name", "a", "é"].randomElement(using: &random) ?? "a"] = anyValue(
                &random, depth: depth + 1)
        }
        return .dictionary(entries)
    }

    private static func engine(_ random: inout SeededGenerator) -> PropertyList {
        var entries: PropertyList.Dictionary = ["kind": .string("piston")]
        if Bool.random(using: &random) { entries["power"] = .integer(.init(Int.random(in: 0...400, using: &random))) }
        if Int.random(in: 0..<40, using: &random) == 0 { entries["kind"] = anyValue(&random) }
        if Int.random(in: 0..<50, using: &random) == 0 { entries["kind"] = nil }
        return .dictionary(entries)
    }

    /// A field's right value most of the time, otherwise anything.
    private static func field(_ key: Craft.Key, _ random: inout SeededGenerator) -> PropertyList? {
        let roll = Int.random(in: 0..<80, using: &random)
        if roll == 0 { return nil }
        if roll == 1 { return anyValue(&random) }
        switch key {
        case .name: return .string("Stemme S10")
        case .hours: return .real(12.5)
        case .active: return .boolean(true)
        case .built: return .date(1000)
        case .photo, .raw: return .data([1, 2, 3])
        case .tags:
            return .array([.string("a"), .string("b"), Int.random(in: 0..<30, using: &random) == 0 ? .integer(1) : "c"])
        case .engines: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in engine(&random) })
        case .main: return engine(&random)
        case .counts: return .dictionary(["a": 1, "b": Int.random(in: 0..<30, using: &random) == 0 ? "x" : 2])
        case .cockpit: return .dictionary(["name": Bool.random(using: &random) ? "glass" : .integer(3)])
        case .seats: return .integer(.init(Int.random(in: 0...260, using: &random)))
        case .grid: return .array([.array([engine(&random)]), .array([engine(&random), engine(&random)])])
        }
    }

    private static func envelope(_ random: inout SeededGenerator) -> PropertyList {
        var entries: PropertyList.Dictionary = [:]
        for key in Craft.Key.allCases { entries[key.rawValue] = field(key, &random) }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            entries[["anything", "note", "all", "extra é"].randomElement(using: &random) ?? "note"] = anyValue(&random)
        }
        let versions: [(PropertyList?, PropertyList?)] = [
            (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 1), (2, 0), (2, 2), (3, 0),
            (1, 0), (nil, 1), (2, nil), ("2", 1), (2, 1.5),
        ]
        let (major, minor) = versions.randomElement(using: &random) ?? (2, 1)
        entries[DocumentFormat.majorKey] = major
        entries[DocumentFormat.minorKey] = minor
        if Int.random(in: 0..<40, using: &random) == 0 { return .array([.dictionary(entries)]) }
        return .dictionary(entries)
    }

    /// The envelope's bytes, sometimes damaged: bytes changed, cut short, or replaced by noise after the magic.
    private static func bytes(_ random: inout SeededGenerator) throws -> [UInt8] {
        var bytes = try envelope(&random).encoded(as: .binary)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: 8..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 2:
            let index = Int.random(in: bytes.count - 40..<bytes.count, using: &random)
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        case 3:
            bytes.removeLast(Int.random(in: 1...10, using: &random))
        case 4 where Int.random(in: 0..<4, using: &random) == 0:
            bytes =
                Array("bplist00".utf8)
                + (0..<Int.random(in: 0...80, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
        default: break
        }
        return bytes
    }

    /// An error with everything it says, its underlying errors' included.
    private static func fingerprint(_ error: any Error) -> String {
        guard let error = error as? HangarError else { return "\(type(of: error)): \(error)" }
        return "\(error.code) \(error.path) \(error) <- \(error.underlying.map(fingerprint) ?? "")"
    }

    /// What a load gave: the model (compared with `==`, so a dictionary's order does not count, as a Swift
    /// dictionary's iteration order says nothing) and its version, or the error with everything it says.
    private enum Outcome: Equatable {
        case loaded(Craft, DocumentVersion, Bool)
        case failed(String)
    }

    private static func outcome(_ load: () throws -> Loaded<Craft>) -> Outcome {
        do {
            let loaded = try load()
            return .loaded(loaded.value, loaded.storedVersion, loaded.wasMigrated)
        } catch {
            return .failed(fingerprint(error))
        }
    }

    @Test func lazyAndTreeLoadsAgreeOnRandomDocuments() throws {
        var random = SeededGenerator(seed: 0x1A2B)
        let configuration = StoreConfiguration()
        var models = 0
        for round in 0..<4000 {
            let stored = StoredDocument(
                collection: Craft.collection, key: "k\(round)", revision: 1,
                version: DocumentVersion(major: 2, minor: 1),
                classTag: nil, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0),
                body: try Self.bytes(&random))
            let lazy = Self.outcome {
                try DocumentRules.lazilyDecoded(stored, as: Craft.self, configuration: configuration)
                    ?? DocumentRules.treeDecoded(stored, as: Craft.self, configuration: configuration)
            }
            let tree = Self.outcome {
                try DocumentRules.treeDecoded(stored, as: Craft.self, configuration: configuration)
            }
            #expect(lazy == tree, "round \(round)")
            if lazy == tree,
                (try? DocumentRules.lazilyDecoded(stored, as: Craft.self, configuration: configuration)) != nil
            {
                models += 1  // Read on the lazy path, not handed to the tree path.
            }
        }
        // The random documents are not all errors: a fair share read back as models.
        #expect(models > 400, "only \(models) of 4000 documents read as models")
    }

    @Test func mapChecksAsTheDecoderDoesAndReadsEqualValues() throws {
        var random = SeededGenerator(seed: 0x5EED)
        for round in 0..<3000 {
            let bytes = try Self.bytes(&random)
            let tree = Result { () throws(PropertyListError) in try PropertyList(binary: bytes) }
            let map = Result { () throws(PropertyListError) in try BinaryPropertyListMap(bytes) }
            switch (tree, map) {
            case (.success(let value), .success(let map)):
                #expect(try map.value(of: map.root) == value, "round \(round)")
            case (.failure(let treeError), .failure(let mapError)):
                #expect("\(treeError)" == "\(mapError)", "round \(round)")
                #expect(treeError.code == mapError.code, "round \(round)")
            default:
                Issue.record("round \(round): the decoder gave \(tree), the map \(map)")
            }
        }
    }

    @Test func lookupFindsTheLastOfARepeatedKeyAndMatchesScalarForScalar() throws {
        // {"a": 1, "é": 2, "e\u{301}": 3, "a": 4} written by hand: a repeated key, a precomposed and a decomposed key.
        let value = try PropertyList(binary: Self.repeatedKeyFile)
        let map = try BinaryPropertyListMap(Self.repeatedKeyFile)
        #expect(value.dictionaryValue?["a"] == .integer(4))
        #expect(map.lookup("a", in: map.root).map { try? map.value(of: $0) } == .integer(4))
        #expect(map.lookup("é", in: map.root).map { try? map.value(of: $0) } == .integer(2))
        #expect(map.lookup("e\u{301}", in: map.root).map { try? map.value(of: $0) } == .integer(3))
        #expect(map.lookup("b", in: map.root) == nil)
    }

    /// A dictionary of four entries with objects: 0 dict, 1 "a", 2 "é" (UTF-16), 3 "e\u{301}" (UTF-16), 4..7 ints.
    static let repeatedKeyFile: [UInt8] = {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.append(bytes.count)
        bytes += [0xD4, 1, 2, 3, 1, 4, 5, 6, 7]
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "a")]
        offsets.append(bytes.count)
        bytes += [0x61, 0x00, 0xE9]
        offsets.append(bytes.count)
        bytes += [0x62, 0x00, 0x65, 0x03, 0x01]
        for number in 1...4 {
            offsets.append(bytes.count)
            bytes += [0x10, UInt8(number)]
        }
        let table = bytes.count
        bytes += offsets.map { UInt8($0) }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 8)
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return bytes
    }()
}
