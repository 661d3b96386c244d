import Dispatch
import Hangar
import PilotModels
import PropertyList
import Synchronization
import Testing

/// Counts initializer runs, to prove which initializers never ran.
let stowawayInits = Mutex(0)
let intruderInits = Mutex(0)

/// An `Airplane` subclass nobody registered, with a side effect in its initializer.
final class Stowaway: Airplane, @unchecked Sendable {
    required init(propertyList: PropertyList) throws(HangarError) {
        stowawayInits.withLock { $0 += 1 }
        try super.init(propertyList: propertyList)
    }
}

/// A class registered, but for its own base type, never for `Airplane`.
final class Intruder: PropertyListRepresentable, @unchecked Sendable {
    init() {}
    init(propertyList: PropertyList) throws(HangarError) {
        intruderInits.withLock { $0 += 1 }
    }
    var propertyListRepresentation: PropertyList { [:] }
}

/// Serialized: the side-effect counters are shared by the allow-list tests and their positive control.
@Suite(.serialized) struct ClassRegistryTests {
    static let airplane: PropertyList = ["model": "m", "registrationNumber": "r", "airframeHours": 1]

    static func tagged(_ tag: PropertyList) -> PropertyList {
        guard case .dictionary(var entries) = airplane else { return airplane }
        entries["class"] = tag
        return .dictionary(entries)
    }

    static let registryWithIntruder: ClassRegistry = {
        var registry = ClassRegistry.pilots
        registry.register(Intruder.self, tag: "Intruder", as: Intruder.self)
        return registry
    }()

    @Test func unknownTagIsRefusedAndNothingIsConstructed() {
        let value: PropertyList = ["name": "X", "airplanes": [Self.airplane, Self.tagged("Stowaway")]]
        expectModelError(.unknownClassTag, #"airplanes[1]: unknown class tag "Stowaway" for Airplane"#) {
            () throws(HangarError) in try ClassRegistry.pilots.decode(Pilot.self, from: value)
        }
        #expect(stowawayInits.withLock { $0 } == 0)
    }

    @Test func aTagOfAnotherBaseTypeIsRefusedBeforeConstruction() {
        let value: PropertyList = ["name": "X", "airplanes": [Self.tagged("Intruder")]]
        expectModelError(
            .disallowedClassTag, #"airplanes[0]: class tag "Intruder" is registered for Intruder, not for Airplane"#
        ) { () throws(HangarError) in try Self.registryWithIntruder.decode(Pilot.self, from: value) }
        #expect(intruderInits.withLock { $0 } == 0)
    }

    @Test func theSameTagIsAllowedWhereItsBaseIsRead() throws {
        let before = intruderInits.withLock { $0 }
        _ = try Self.registryWithIntruder.decode(Intruder.self, from: ["class": "Intruder"])
        #expect(intruderInits.withLock { $0 } == before + 1)
    }

    @Test func aTagMustBeAString() {
        expectModelError(.typeMismatch, "[0].class: expected string, found integer 5") { () throws(HangarError) in
            try ClassRegistry.pilots.decode([Airplane].self, from: [Self.tagged(5)])
        }
    }

    @Test func withoutARegistryTaggedValuesAreRefused() {
        #expect(ClassRegistry.current.tags(for: Airplane.self).isEmpty)
        expectModelError(.unknownClassTag, #"airplanes[0]: unknown class tag "Glider" for Airplane"#) {
            () throws(HangarError) in try Pilot(propertyList: ["name": "X", "airplanes": [Self.tagged("Glider")]])
        }
    }

    @Test func untaggedValuesReadAsTheExpectedType() throws {
        let airplanes = try ClassRegistry.pilots.decode([Airplane].self, from: [Self.airplane])
        #expect(type(of: airplanes[0]) == Airplane.self)
    }

    @Test func aDirectInitializerBuildsExactlyTheTypeNamed() throws {
        let airplane = try Airplane(propertyList: Self.tagged("Glider"))
        #expect(type(of: airplane) == Airplane.self)
    }

    @Test func encodingWithoutARegistryWritesNoTag() {
        let glider = Glider(
            model: "m", registrationNumber: "r", airframeHours: 1, aerotowLaunchCount: 2, winchLaunchCount: 3)
        #expect(Pilot(name: "X", airplanes: [glider]).propertyListRepresentation["airplanes"]?[0]?["class"] == nil)
        let tagged = ClassRegistry.pilots.withCurrent {
            Pilot(name: "X", airplanes: [glider]).propertyListRepresentation
        }
        #expect(tagged["airplanes"]?[0]?["class"] == "Glider")
    }

    @Test func tagsAreListedPerBase() {
        #expect(ClassRegistry.pilots.tags(for: Airplane.self) == ["Airplane", "Glider", "PoweredAirplane"])
        #expect(ClassRegistry.pilots.tag(for: Glider.self) == "Glider")
        #expect(ClassRegistry.pilots.tag(for: Stowaway.self) == nil)
        #expect(Self.registryWithIntruder.tags(for: Intruder.self) == ["Intruder"])
    }

    @Test func registeringTheSameTypeTwiceUnderItsTagIsHarmless() {
        var registry = ClassRegistry.pilots
        registry.register(Glider.self, tag: "Glider", as: Airplane.self)
        #expect(registry.tags(for: Airplane.self) == ["Airplane", "Glider", "PoweredAirplane"])
    }

    @Test func aSharedRegistryDecodesConcurrentlyOnTasks() async throws {
        let value = ClassRegistry.pilots.encode(PilotModelsTests.makePilot())
        let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var seen: [Int] = []
                    for _ in 0..<50 {
                        let pilot = try ClassRegistry.pilots.decode(Pilot.self, from: value)
                        seen.append((pilot.airplanes[2] as? Glider)?.winchLaunchCount ?? -1)
                        #expect(ClassRegistry.pilots.encode(pilot) == value)
                    }
                    return seen
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(counts.count == 400)
        #expect(counts.allSatisfy { $0 == 8_000 })
    }

    @Test func registriesBoundOnDifferentThreadsDoNotLeak() {
        let glider = Glider(
            model: "m", registrationNumber: "r", airframeHours: 1, aerotowLaunchCount: 2, winchLaunchCount: 3)
        let value = ClassRegistry.pilots.encode([glider] as [Airplane])
        let outcomes = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            // Even iterations bind the pilots registry; odd ones bind none and must be refused.
            let registry = index.isMultiple(of: 2) ? ClassRegistry.pilots : ClassRegistry()
            let decoded = (try? registry.decode([Airplane].self, from: value))?.first is Glider
            outcomes.withLock { $0.append(decoded == index.isMultiple(of: 2)) }
        }
        #expect(outcomes.withLock { $0.count == 64 && $0.allSatisfy { $0 } })
    }

    @Test func registeringAStructIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var registry = ClassRegistry()
            registry.register(Pilot.self, tag: "Pilot", as: Pilot.self)
        }
    }

    @Test func reusingATagForAnotherTypeIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var registry = ClassRegistry.pilots
            registry.register(PoweredAirplane.self, tag: "Glider", as: Airplane.self)
        }
    }
}
