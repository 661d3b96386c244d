import Hangar
import PilotModels
import PropertyList
import Synchronization
import Testing

/// Counts `Balloon` initializer runs: no hostile document may construct one.
let balloonInits = Mutex(0)

/// A class registered for its own base type (a balloon is no airplane), never for `Airplane`.
final class Balloon: PropertyListRepresentable, @unchecked Sendable {
    init() {}
    init(propertyList: PropertyList) throws(HangarError) {
        balloonInits.withLock { $0 += 1 }
    }
    var propertyListRepresentation: PropertyList { [:] }
}

/// Hostile Pilot documents, as bytes a user could hand over: the class tag inside them must be refused through the
/// registry's allow-list, with the right `HangarError` kind and path, before any initializer of the tagged type runs.
@Suite struct HostileModelTests {
    static let registry: ClassRegistry = {
        var registry = ClassRegistry.pilots
        registry.register(Balloon.self, tag: "Balloon", as: Balloon.self)
        return registry
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let document: String
        let kind: HangarError.Code
        let description: String
        var testDescription: String { name }
    }

    static func pilot(airplanes: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key><string>Amelia</string>
        \t<key>airplanes</key>
        \t<array>
        \t\t<dict><key>class</key><string>Glider</string><key>model</key><string>ASK 21</string>
        \t\t\t<key>registrationNumber</key><string>D-1234</string><key>airframeHours</key><integer>10</integer>
        \t\t\t<key>aerotowLaunchCount</key><integer>1</integer><key>winchLaunchCount</key><integer>2</integer></dict>
        \(airplanes)
        \t</array>
        </dict>
        </plist>
        """
    }

    static let airplaneFields =
        "<key>model</key><string>m</string><key>registrationNumber</key><string>r</string><key>airframeHours</key><integer>1</integer>"

    static let cases: [Case] = [
        Case(
            name: "unknown class tag",
            document: pilot(airplanes: "<dict><key>class</key><string>Zeppelin</string>\(airplaneFields)</dict>"),
            kind: .unknownClassTag, description: #"airplanes[1]: unknown class tag "Zeppelin" for Airplane"#),
        Case(
            name: "class tag of another base type",
            document: pilot(airplanes: "<dict><key>class</key><string>Balloon</string>\(airplaneFields)</dict>"),
            kind: .disallowedClassTag,
            description: #"airplanes[1]: class tag "Balloon" is registered for Balloon, not for Airplane"#),
        Case(
            name: "empty class tag",
            document: pilot(airplanes: "<dict><key>class</key><string></string>\(airplaneFields)</dict>"),
            kind: .unknownClassTag, description: #"airplanes[1]: unknown class tag "" for Airplane"#),
        Case(
            name: "class tag that is not a string",
            document: pilot(airplanes: "<dict><key>class</key><array/>\(airplaneFields)</dict>"),
            kind: .typeMismatch, description: "airplanes[1].class: expected string, found array (0 elements)"),
        Case(
            name: "a type name in place of a tag",
            document: pilot(
                airplanes: "<dict><key>class</key><string>PilotModels.Glider</string>\(airplaneFields)</dict>"),
            kind: .unknownClassTag, description: #"airplanes[1]: unknown class tag "PilotModels.Glider" for Airplane"#),
    ]

    @Test(arguments: cases)
    func refusedWithTheRightKind(_ hostile: Case) throws {
        let value = try PropertyList(xml: Array(hostile.document.utf8))
        let clock = ContinuousClock()
        let start = clock.now
        expectModelError(hostile.kind, hostile.description) { () throws(HangarError) in
            try Self.registry.decode(Pilot.self, from: value)
        }
        #expect(clock.now - start < .seconds(1))
        #expect(balloonInits.withLock { $0 } == 0)
    }

    /// The positive control: the same document with a registered airplane tag reads, so the refusals above are
    /// the allow-list's doing and not a broken document.
    @Test func theSameDocumentWithAnAllowedTagReads() throws {
        let document = Self.pilot(
            airplanes: "<dict><key>class</key><string>Airplane</string>\(Self.airplaneFields)</dict>")
        let pilot = try Self.registry.decode(Pilot.self, from: PropertyList(xml: Array(document.utf8)))
        #expect(pilot.airplanes.count == 2)
        #expect(pilot.airplanes[0] is Glider)
        #expect(type(of: pilot.airplanes[1]) == Airplane.self)
    }
}
