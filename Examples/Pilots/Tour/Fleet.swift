import Foundation
import PilotModels

/// The pilots the tour saves, keyed by license number: mixed fleets of every airplane kind.
enum Fleet {
    static let ada = Pilot(
        name: "Ada Lindqvist",
        licenseNumber: "SE-PPL-0042",
        dateOfBirth: Date(timeIntervalSinceReferenceDate: -530_409_600),  // 1984-03-12
        homeAirfield: "ESSB",
        airplanes: [
            Airplane(model: "Piper PA-18 Super Cub", registrationNumber: "SE-GHK", airframeHours: 7_402),
            PoweredAirplane(
                model: "Cessna 172S", registrationNumber: "SE-KMP", airframeHours: 12_518, engineHorsepower: 180,
                engineHours: 1_958),
            Glider(
                model: "Schleicher ASK 21", registrationNumber: "SE-UXA", airframeHours: 4_297,
                aerotowLaunchCount: 1_362, winchLaunchCount: 6_071),
        ])

    static let jonas = Pilot(
        name: "Jonas Berg",
        licenseNumber: "SE-SPL-1187",
        homeAirfield: "ESVA",
        airplanes: [
            Glider(
                model: "Schempp-Hirth Duo Discus", registrationNumber: "SE-UKD", airframeHours: 3_120,
                aerotowLaunchCount: 2_204, winchLaunchCount: 310),
            Glider(
                model: "Rolladen-Schneider LS4", registrationNumber: "SE-TZL", airframeHours: 5_877,
                aerotowLaunchCount: 950, winchLaunchCount: 4_412),
            PoweredAirplane(
                model: "Piper PA-25 Pawnee", registrationNumber: "SE-FPW", airframeHours: 9_840, engineHorsepower: 235,
                engineHours: 612),
        ])

    static let mei = Pilot(
        name: "Mei Tanaka",
        licenseNumber: "JA-PPL-2231",
        dateOfBirth: Date(timeIntervalSinceReferenceDate: 27_475_200),  // 2001-11-15
        airplanes: [
            // The seed's airframeHours is an unsigned long long: the whole UInt64 range round-trips.
            Airplane(model: "Taylorcraft BC-12D", registrationNumber: "JA3TC", airframeHours: UInt64.max),
            PoweredAirplane(
                model: "Diamond DA40", registrationNumber: "JA40DT", airframeHours: 2_260, engineHorsepower: 180,
                engineHours: 2_260),
        ])

    /// Every pilot, under the key the tour stores it at.
    static let pilots: [(key: String, pilot: Pilot)] = [ada, jonas, mei].map { ($0.licenseNumber ?? $0.name, $0) }
}
