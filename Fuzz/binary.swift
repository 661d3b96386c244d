// libFuzzer target: arbitrary bytes into the binary reader. Compiled together with the PropertyList
// sources as one module by Scripts/fuzz.sh. Anything decoded must re-encode and decode to an equal value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? PropertyList(binary: bytes, limits: DecodingLimits(maxExpandedNodes: 1 << 16)) else {
        return 0
    }
    roundTrip(value, as: .binary)
    return 0
}
