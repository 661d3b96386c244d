// libFuzzer target: arbitrary bytes into the binary reader (Scripts/fuzz.sh binary SECONDS).
// Anything decoded must re-encode and decode to an equal value; the file's own graph rewritten
// (`PropertyList.rewrittenBinary`) must read back equal, and rewriting that changes nothing.
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let limits = DecodingLimits(maxExpandedNodes: 1 << 16)
    guard let value = try? PropertyList(binary: bytes, limits: limits) else {
        return 0
    }
    roundTrip(value, as: .binary)
    uidsSurviveXML(value)
    rewriteKeepsTheValue(bytes, value, limits: limits)
    return 0
}

/// The rewrite of a file that decoded must succeed, read back as the same value, and be its own rewrite.
func rewriteKeepsTheValue(_ bytes: [UInt8], _ value: PropertyList, limits: DecodingLimits) {
    let rewritten: [UInt8]
    do {
        rewritten = try PropertyList.rewrittenBinary(bytes, limits: limits)
    } catch {
        fatalError("a file that decoded failed to rewrite: \(error)")
    }
    guard let again = try? PropertyList(binary: rewritten, limits: limits), again == value else {
        fatalError("the rewritten file does not read back as the same value")
    }
    guard (try? PropertyList.rewrittenBinary(rewritten, limits: limits)) == rewritten else {
        fatalError("rewriting the rewritten file changed it")
    }
}
