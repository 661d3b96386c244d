import Foundation
import PropertyList

// The server rows' request bodies: the first pilots of the pilots dataset (Scripts/make-datasets.py), each as a
// Pilot 2.0 document (the pilot's keys beside majorVersion / minorVersion, Examples/Pilots/Models), binary plist.

/// `count` pilots of the dataset as Pilot 2.0 documents, binary plist (our writer).
func pilotBodies(count: Int) throws -> [[UInt8]] {
    let files = try DatasetFiles.prepare()
    let dataset = try PropertyList(binary: try readWholeFile(files.binaryPath("pilots")))
    guard let objects = dataset["objects"]?.arrayValue, objects.count >= count else {
        throw ServerSetupError("pilots.bplist has fewer than \(count) pilots")
    }
    return try objects.prefix(count).enumerated().map { index, object in
        try pilotDocument(from: object, index: index).encoded(as: .binary)
    }
}

/// One dataset pilot as the Pilots model stores it: the dataset's name, id (as the license number), date (as the
/// date of birth) and airplanes (gliders and balloons as `Glider`, every other class a `PoweredAirplane`); the
/// dataset's photos, notes and ratings have no place in the model and are left out.
func pilotDocument(from object: PropertyList, index: Int) throws -> PropertyList {
    guard let name = object["name"]?.stringValue, let id = object["id"]?.integerValue?.int64Value,
        let licensed = object["licensed"], licensed.dateValue != nil,
        let airplanes = object["airplanes"]?.arrayValue
    else { throw ServerSetupError("pilot \(index) of the dataset lacks name, id, licensed or airplanes") }
    let airfields = ["EDDF", "EDNY", "LSZH", "EGLL", "KOSH", "LFPG", "ESSA", "LOWI"]
    let converted = try airplanes.map { airplane -> PropertyList in
        guard let kind = airplane["class"]?.stringValue, let model = airplane["model"]?.stringValue,
            let registration = airplane["registrationNumber"]?.stringValue,
            let hours = airplane["airframeHours"]?.integerValue?.uint64Value,
            let horsepower = airplane["engineHorsepower"]?.integerValue?.int64Value
        else { throw ServerSetupError("an airplane of pilot \(index) lacks class, model, registration or hours") }
        var fields: PropertyList.Dictionary = [
            "model": .string(model), "registrationNumber": .string(registration),
            "airframeHours": .integer(PropertyList.Integer(hours)),
        ]
        if kind == "Glider" || kind == "Balloon" {
            fields["class"] = "Glider"
            fields["aerotowLaunchCount"] = .integer(PropertyList.Integer(Int64(hours % 4_000)))
            fields["winchLaunchCount"] = .integer(PropertyList.Integer(Int64(hours / 7 % 9_000)))
        } else {
            fields["class"] = "PoweredAirplane"
            fields["engineHorsepower"] = .integer(PropertyList.Integer(horsepower))
            fields["engineHours"] = .integer(PropertyList.Integer(hours / 3))
        }
        return .dictionary(fields)
    }
    return [
        "majorVersion": 2, "minorVersion": 0, "name": .string(name), "licenseNumber": .string("PPL-\(id)"),
        "dateOfBirth": licensed, "homeAirfield": .string(airfields[index % airfields.count]),
        "airplanes": .array(converted),
    ]
}

/// Writes the bodies for hangar-load: each as a 4-byte big-endian length, then its bytes.
func writeBodies(_ bodies: [[UInt8]], to path: String) throws {
    var bytes: [UInt8] = []
    for body in bodies {
        let length = UInt32(body.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += body
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
