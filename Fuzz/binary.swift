// libFuzzer target: arbitrary bytes into the binary reader (Scripts/fuzz.sh binary SECONDS).
// Anything decoded must re-encode and decode to an equal value.
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? PropertyList(binary: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    roundTrip(value, as: .binary)
    uidsSurviveXML(value)
    return 0
}
