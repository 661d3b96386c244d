import Foundation
import PropertyList

/// SplitMix64: a tiny, fast, seeded generator, so every run benchmarks the very same documents.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - The Codable mirror of a pilots document

/// The root of a generated document. The same data exists as these structs (for `PropertyListEncoder`/`Decoder`),
/// as a `PropertyList` value (ours) and as an `NSDictionary` graph (for `PropertyListSerialization`).
struct PilotsDocument: Codable, Equatable {
    var formatVersion: Int
    var generated: Date
    var club: String
    var pilots: [Pilot]
}

struct Pilot: Codable, Equatable {
    var id: Int
    var name: String
    var email: String
    var birthDate: Date
    var licenseIssued: Date
    var photo: Data
    var isInstructor: Bool
    var isActive: Bool
    var rating: Double
    var totalFlightHours: Double
    var airplanes: [Airplane]
}

struct Airplane: Codable, Equatable {
    var model: String
    var registrationNumber: String
    /// Some values are above `Int64.max`: the 16-byte integer path of the binary format.
    var airframeHours: UInt64
    var engineHorsepower: Int
    var winchLaunches: Int
    var aerotowLaunches: Int
    var classTag: String
    var lastInspection: Date
    var maxTakeoffWeight: Double

    enum CodingKeys: String, CodingKey {
        case model, registrationNumber, airframeHours, engineHorsepower, winchLaunches, aerotowLaunches
        case classTag = "class"
        case lastInspection, maxTakeoffWeight
    }
}

// MARK: - Generation

enum DocumentGenerator {
    private static let firstNames = [
        "Amélie", "José", "Zoë", "Søren", "Łukasz", "Björn", "François", "Jürgen", "Ingrid", "Olivia", "Liam", "Noah",
        "Emma", "Chloé", "Mateo", "Ana", "Hannah", "Sébastien", "Ælfred", "Dmitri", "Αλέξανδρος", "Дмитрий", "陈伟",
        "佐藤", "김민준", "Øyvind", "Nuño", "Siobhán", "Ines", "Karl", "Marie", "Paul",
    ]
    private static let lastNames = [
        "Müller", "García", "Lefèvre", "Nowak", "Sørensen", "Smith", "Johnson", "Brown", "Rossi", "Dubois", "Schmidt",
        "Fernández", "Kowalski", "Andersson", "O'Brien", "Yamamoto", "田中", "王", "Иванов", "Παπαδόπουλος", "Weiß",
        "Novák", "Horváth", "Costa",
    ]
    private static let emoji = ["✈️", "🛩️", "🪂", "🌤", "🦅"]
    private static let models: [(model: String, horsepower: Int, classTag: String)] = [
        ("Schleicher ASK 21", 0, "glider"), ("Schempp-Hirth Discus-2b", 0, "glider"), ("DG-1000S", 0, "glider"),
        ("Schleicher ASK 13", 0, "glider"), ("Rolladen-Schneider LS8", 0, "glider"),
        ("Grob G 103 Twin Astir", 0, "glider"),
        ("Stemme S10-VT", 115, "motorglider"), ("Scheibe SF 25 Falke", 80, "motorglider"),
        ("Pipistrel Taurus Electro", 54, "motorglider"), ("Piper PA-18 Super Cub", 150, "tug"),
        ("Robin DR400/180R Remorqueur", 180, "tug"), ("Aviat Husky A-1C", 180, "tug"),
        ("Ikarus C42", 100, "ultralight"),
        ("Comco Ikarus C42B", 100, "ultralight"),
    ]
    private static let domains = ["example.org", "gliding.example", "aeroclub.example", "mail.example.net"]

    /// A document of `pilotCount` pilots, the same for the same seed.
    static func pilots(count pilotCount: Int, seed: UInt64) -> PilotsDocument {
        var random = SplitMix64(seed: seed)
        var pilots: [Pilot] = []
        pilots.reserveCapacity(pilotCount)
        for id in 0..<pilotCount {
            pilots.append(pilot(id: id, using: &random))
        }
        return PilotsDocument(
            formatVersion: 3,
            generated: Date(timeIntervalSinceReferenceDate: 767_225_600.125),
            club: "Segelfluggruppe Hangar e.V. 🛩️",
            pilots: pilots
        )
    }

    private static func pilot(id: Int, using random: inout SplitMix64) -> Pilot {
        let first = firstNames.randomElement(using: &random)!
        let last = lastNames.randomElement(using: &random)!
        var name = "\(first) \(last)"
        if Int.random(in: 0..<10, using: &random) == 0 { name += " " + emoji.randomElement(using: &random)! }
        let email =
            "pilot\(id).\(String(last.unicodeScalars.filter(\.isASCII)).lowercased())@"
            + domains.randomElement(using: &random)!
        var photo = [UInt8](repeating: 0, count: Int.random(in: 200...900, using: &random))
        for index in photo.indices { photo[index] = UInt8(truncatingIfNeeded: random.next()) }
        let airplaneCount = Int.random(in: 1...4, using: &random)
        return Pilot(
            id: 10_000 + id,
            name: name,
            email: email,
            birthDate: date(from: -1_200_000_000, to: -300_000_000, using: &random),
            licenseIssued: date(from: -400_000_000, to: 760_000_000, using: &random),
            photo: Data(photo),
            isInstructor: Int.random(in: 0..<5, using: &random) == 0,
            isActive: Int.random(in: 0..<4, using: &random) != 0,
            rating: (Double.random(in: 0...5, using: &random) * 100).rounded() / 100,
            totalFlightHours: Double.random(in: 0...12_000, using: &random),
            airplanes: (0..<airplaneCount).map { _ in airplane(using: &random) }
        )
    }

    private static func airplane(using random: inout SplitMix64) -> Airplane {
        let kind = models.randomElement(using: &random)!
        let letters = (0..<4).map { _ in Character(Unicode.Scalar(UInt8.random(in: 65...90, using: &random))) }
        let prefix = ["D-", "F-", "G-", "HB-", "OE-", "SP-"].randomElement(using: &random)!
        // One in twenty-five airframes reports a counter above Int64.max (a broken logger writing UInt64.max - n).
        let hours: UInt64 =
            Int.random(in: 0..<25, using: &random) == 0
            ? UInt64.max - UInt64.random(in: 0...1_000_000, using: &random)
            : UInt64.random(in: 0...40_000, using: &random)
        let isGlider = kind.horsepower == 0
        return Airplane(
            model: kind.model,
            registrationNumber: prefix + String(letters),
            airframeHours: hours,
            engineHorsepower: kind.horsepower,
            winchLaunches: isGlider ? Int.random(in: 0...20_000, using: &random) : 0,
            aerotowLaunches: kind.classTag == "tug"
                ? Int.random(in: 0...80_000, using: &random)
                : Int.random(in: 0...3_000, using: &random),
            classTag: kind.classTag,
            lastInspection: date(from: 600_000_000, to: 767_000_000, using: &random),
            maxTakeoffWeight: Double(Int.random(in: 3_000...12_000, using: &random)) / 10
        )
    }

    /// A date with a fraction of a second (binary keeps it; XML writes whole seconds).
    private static func date(from lower: Int, to upper: Int, using random: inout SplitMix64) -> Date {
        let seconds = Double(Int.random(in: lower...upper, using: &random))
        let fraction = Double(Int.random(in: 0..<1000, using: &random)) / 1000
        return Date(timeIntervalSinceReferenceDate: seconds + fraction)
    }
}

// MARK: - The same document as our value

extension PilotsDocument {
    var propertyList: PropertyList {
        .dictionary([
            "formatVersion": .integer(.init(formatVersion)),
            "generated": .date(generated.timeIntervalSinceReferenceDate),
            "club": .string(club),
            "pilots": .array(pilots.map(\.propertyList)),
        ])
    }
}

extension Pilot {
    var propertyList: PropertyList {
        .dictionary([
            "id": .integer(.init(id)),
            "name": .string(name),
            "email": .string(email),
            "birthDate": .date(birthDate.timeIntervalSinceReferenceDate),
            "licenseIssued": .date(licenseIssued.timeIntervalSinceReferenceDate),
            "photo": .data([UInt8](photo)),
            "isInstructor": .boolean(isInstructor),
            "isActive": .boolean(isActive),
            "rating": .real(rating),
            "totalFlightHours": .real(totalFlightHours),
            "airplanes": .array(airplanes.map(\.propertyList)),
        ])
    }
}

extension Airplane {
    var propertyList: PropertyList {
        .dictionary([
            "model": .string(model),
            "registrationNumber": .string(registrationNumber),
            "airframeHours": .integer(.init(airframeHours)),
            "engineHorsepower": .integer(.init(engineHorsepower)),
            "winchLaunches": .integer(.init(winchLaunches)),
            "aerotowLaunches": .integer(.init(aerotowLaunches)),
            "class": .string(classTag),
            "lastInspection": .date(lastInspection.timeIntervalSinceReferenceDate),
            "maxTakeoffWeight": .real(maxTakeoffWeight),
        ])
    }
}

// MARK: - The corpus file as Codable structs

/// `rust-three-byte-offsets.bplist`: `{data: {"<id>": {platformName: {name, mask}, introduced: {…}, deprecated: {…}}},
/// platforms: [{name, mask}], interfaceLanguages: [{name, id, mask}], languageToPlatforms: [language, [platform], …]}`.
struct PlatformsDocument: Codable, Equatable {
    struct Platform: Codable, Equatable {
        var name: String
        var mask: UInt64
    }

    struct Version: Codable, Equatable {
        var majorVersion: Int
        var minorVersion: Int
        var patchVersion: Int
    }

    struct Availability: Codable, Equatable {
        var platformName: Platform
        var introduced: Version?
        var deprecated: Version?
    }

    struct Language: Codable, Equatable {
        var name: String
        var id: String
        var mask: UInt64
    }

    /// `languageToPlatforms` alternates a language dictionary and an array of its platforms.
    enum LanguageOrPlatforms: Codable, Equatable {
        case language(Language)
        case platforms([Platform])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let platforms = try? container.decode([Platform].self) {
                self = .platforms(platforms)
            } else {
                self = .language(try container.decode(Language.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .language(let language): try container.encode(language)
            case .platforms(let platforms): try container.encode(platforms)
            }
        }
    }

    var data: [String: Availability]
    var platforms: [Platform]
    var interfaceLanguages: [Language]
    var languageToPlatforms: [LanguageOrPlatforms]
}

// MARK: - The same value as a Foundation object graph

/// Builds the `NSDictionary`/`NSArray`/`NSString`/`NSNumber`/`NSDate`/`NSData` graph that
/// `PropertyListSerialization` takes, once, outside the timed region (a caller of Foundation holds such a graph).
func foundationObject(_ value: PropertyList) -> NSObject {
    switch value {
    case .string(let string):
        return NSString(string: string)
    case .integer(let integer):
        if let signed = integer.int64Value { return NSNumber(value: signed) }
        return NSNumber(value: integer.uint64Value!)
    case .real(let real):
        return NSNumber(value: real)
    case .boolean(let boolean):
        return NSNumber(value: boolean)
    case .date(let seconds):
        return NSDate(timeIntervalSinceReferenceDate: seconds)
    case .data(let bytes):
        return NSData(data: Data(bytes))
    case .array(let elements):
        return NSArray(array: elements.map(foundationObject))
    case .dictionary(let entries):
        let keys = entries.keys.map { NSString(string: $0) }
        let objects = entries.values.map(foundationObject)
        return NSDictionary(objects: objects, forKeys: keys)
    case .uid(let uid):
        // Foundation has no public UID type; the benchmark documents hold none.
        return NSDictionary(object: NSNumber(value: uid), forKey: NSString(string: "CF$UID"))
    }
}
