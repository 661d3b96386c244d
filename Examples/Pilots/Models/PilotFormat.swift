public import Hangar
import PropertyList

// The Pilots document format, version by version. A document is one pilot: its keys sit beside
// `majorVersion` / `minorVersion`, and its airplanes are an array of dictionaries inside it.
//
// | Version | Content (beside majorVersion / minorVersion)                         | Step from the one before       |
// |---------|----------------------------------------------------------------------|--------------------------------|
// | 1.0     | `name`, `licenseNumber?`, `dateOfBirth?`, `airplanes`. An airplane:  | (first release)                |
// |         | `class` "Airplane" or "MotorAirplane", `model`, `registration`,      |                                |
// |         | `airframeHours` as decimal text ("4210"); a glider was an "Airplane" |                                |
// |         | with `kind` = "glider" and its launch counts.                        |                                |
// | 1.1     | 1.0 plus an optional `homeAirfield` (ICAO code).                     | none: a minor; 1.0 readers     |
// |         |                                                                      | ignore it, absent = unknown    |
// | 2.0     | `registrationNumber` (renamed); `airframeHours` an integer (UInt64); | `PilotFormat.v1ToV2`: rename,  |
// | current | "MotorAirplane" is "PoweredAirplane"; gliders are tagged "Glider";   | text → integer, re-tag, drop   |
// |         | no `kind`.                                                           | `kind`                         |
//
// The step 1 → 2 below speaks raw dictionaries only, never today's model types, and is never edited once
// shipped: a future model change gets a new major and a new step. Frozen files of every version, and what
// each must load as, are in `Migrations/Pilots/` at the repository root.

extension Pilot: VersionedDocument {
    /// Pilots are stored one per document in the `"pilots"` collection, keyed by whatever the app chooses
    /// (the tour uses the license number).
    public static let collection = "pilots"

    /// Version 2.0, reading every version back to 1.0 (see the history table in `PilotFormat.swift`).
    public static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0),
        oldestReadableMajor: 1,
        migrations: [PilotFormat.v1ToV2]
    )
}

/// The Pilots document format's history, as data: the migration steps between majors.
public enum PilotFormat {
    /// 1.x → 2.0: per airplane, `registration` → `registrationNumber`, the `airframeHours` string → integer,
    /// `"MotorAirplane"` → `"PoweredAirplane"`, and `kind: "glider"` → the class tag `"Glider"`.
    ///
    /// A document this step cannot make sense of (airframe hours that are not a number, an airplane kind
    /// 1.x never wrote) throws a ``PilotMigrationError`` naming the place; nothing is guessed or dropped.
    public static let v1ToV2 = DocumentMigration(
        from: 1, "registrationNumber, integer airframeHours, PoweredAirplane and Glider tags"
    ) { content in
        var content = content
        guard let airplanes = content["airplanes"] else { return content }
        guard case .array(let list) = airplanes else {
            throw PilotMigrationError(path: "airplanes", "expected an array, found \(airplanes.kindName)")
        }
        var upgraded: [PropertyList] = []
        upgraded.reserveCapacity(list.count)
        for (index, airplane) in list.enumerated() {
            upgraded.append(try upgradeAirplaneV1(airplane, path: "airplanes[\(index)]"))
        }
        content["airplanes"] = .array(upgraded)
        return content
    }

    /// One 1.x airplane dictionary as 2.0 writes it.
    static func upgradeAirplaneV1(_ airplane: PropertyList, path: String) throws -> PropertyList {
        guard case .dictionary(var fields) = airplane else {
            throw PilotMigrationError(path: path, "expected a dictionary, found \(airplane.kindName)")
        }
        // Rename: 2.0 calls it registrationNumber.
        if let registration = fields.removeValue(forKey: "registration") {
            fields["registrationNumber"] = registration
        }
        // Type change: 1.x wrote the hours as decimal text, like "4210".
        if case .string(let text)? = fields["airframeHours"] {
            guard let hours = UInt64(text) else {
                throw PilotMigrationError(
                    path: path + ".airframeHours", "expected a whole number of hours, found \(text.debugDescription)")
            }
            fields["airframeHours"] = .integer(PropertyList.Integer(hours))
        }
        // Re-tagging: the class was renamed, and gliders got a type of their own.
        let kind = fields.removeValue(forKey: "kind")
        switch (fields["class"], kind) {
        case (.string("MotorAirplane")?, nil):
            fields["class"] = "PoweredAirplane"
        case (.string("Airplane")?, .string("glider")?), (nil, .string("glider")?):
            fields["class"] = "Glider"
        case (_, nil):
            break
        case (_, let kind?):
            let shown = kind.stringValue?.debugDescription ?? kind.kindName
            throw PilotMigrationError(path: path + ".kind", "1.x never wrote the airplane kind \(shown)")
        }
        return .dictionary(fields)
    }
}

/// A Pilots document that a migration step cannot upgrade, and where.
public struct PilotMigrationError: Error, Sendable, CustomStringConvertible {
    /// Where in the document, like `airplanes[2].airframeHours`.
    public let path: String
    /// What was wrong there.
    public let message: String

    init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `airplanes[2].airframeHours: expected a whole number of hours, found "12h"`.
    public var description: String { "\(path): \(message)" }
}
