// libFuzzer target: arbitrary bytes into the XML reader (Scripts/fuzz.sh xml SECONDS).
// Anything decoded must round-trip through binary and through XML, exactly (a date's fraction aside).
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? PropertyList(xml: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    roundTrip(value, as: .binary)
    // What the reader accepts, the writer writes — but for raw control characters, which the reader keeps
    // (as CF does) and XML 1.0 cannot hold: the writer refuses those as unrepresentable.
    roundTrip(value, as: .xml, exact: true, allowingUnrepresentable: true)
    return 0
}
