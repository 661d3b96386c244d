// libFuzzer target for the model layer (Scripts/fuzz.sh pilots SECONDS): arbitrary bytes are decoded as a property
// list in whatever format they look like, then as a `Pilot` document through the pilots' class registry. Either
// step may refuse the input with its typed error; neither may crash. A pilot that decoded must encode to a value
// that decodes to the same representation (class tags included).
// fuzz-module: PropertyList Sources/PropertyList
// fuzz-module: Hangar Sources/Hangar/Model Sources/Hangar/Registry
// fuzz-module: PilotModels Examples/Pilots/Models
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
    let pilot: Pilot
    do {
        pilot = try registry.decode(Pilot.self, from: value)
    } catch {
        _ = error.description  // Rendering the path and message must not crash either.
        return 0
    }
    let encoded = registry.encode(pilot)
    roundTrip(encoded, as: .binary)
    guard let again = try? registry.decode(Pilot.self, from: encoded) else {
        fatalError("an encoded pilot failed to decode")
    }
    if registry.encode(again) != encoded { fatalError("a pilot changed on its second trip through the registry") }
    return 0
}
