// libFuzzer target: arbitrary bytes into the OpenStep reader (Scripts/fuzz.sh openstep SECONDS).
// OpenStep is read only: anything decoded must round-trip through binary (exactly) and through XML and JSON
// (whenever they can hold it; OpenStep gives only strings, data, arrays and dictionaries, all of which XML holds).
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? PropertyList(openStep: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    roundTrip(value, as: .binary)
    roundTrip(value, as: .xml)
    roundTrip(value, as: .json)
    // Whatever the format detector makes of the same bytes must not crash either.
    _ = try? PropertyList.decode(bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16))
    return 0
}
