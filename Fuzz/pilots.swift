// libFuzzer target for the model layer (Scripts/fuzz.sh pilots SECONDS): arbitrary bytes are decoded as a property
// list in whatever format they look like, then as a `Pilot` through the pilots' class registry, and as a versioned
// Pilot document (`Pilot.format.open`: envelope, the 1 → 2 migration) whose content is read the same way. Every
// step may refuse the input with its typed error; none may crash. A pilot that decoded must encode to a value that
// decodes to the same representation (class tags included).
// fuzz-module: PropertyList Sources/PropertyList
// fuzz-module: Hangar Sources/Hangar/Errors Sources/Hangar/Identity Sources/Hangar/Model Sources/Hangar/Registry Sources/Hangar/Documents
// The models without their index definitions, which need Hangar's index layer (not compiled here).
// fuzz-module: PilotModels Examples/Pilots/Models !Examples/Pilots/Models/PilotIndexes.swift
// fuzz-seeds: Migrations/Pilots
import Hangar
import PilotModels
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let (value, _) = try? PropertyList.decode(bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    let registry = ClassRegistry.pilots
    if let opened = try? Pilot.format.open(value) {
        checkPilot(.dictionary(opened.content), registry: registry)
    }
    checkPilot(value, registry: registry)
    return 0
}

func checkPilot(_ value: PropertyList, registry: ClassRegistry) {
    let pilot: Pilot
    do {
        pilot = try registry.decode(Pilot.self, from: value)
    } catch {
        _ = error.description  // Rendering the path and message must not crash either.
        return
    }
    let encoded = registry.encode(pilot)
    roundTrip(encoded, as: .binary)
    guard let again = try? registry.decode(Pilot.self, from: encoded) else {
        fatalError("an encoded pilot failed to decode")
    }
    if registry.encode(again) != encoded { fatalError("a pilot changed on its second trip through the registry") }
}
