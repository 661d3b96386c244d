// libFuzzer target: arbitrary bytes into the JSON reader (Scripts/fuzz.sh json SECONDS).
// Anything decoded must round-trip through binary, XML and JSON; JSON and binary exactly.
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? PropertyList(json: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    roundTrip(value, as: .binary)
    roundTrip(value, as: .json, exact: true)
    roundTrip(value, as: .xml)
    return 0
}
