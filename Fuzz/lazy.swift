// libFuzzer target: arbitrary bytes into the lazy binary map (Scripts/fuzz.sh lazy SECONDS) beside the decoder.
// `BinaryPropertyListMap` must refuse exactly what `PropertyList(binary:)` refuses, with the same error, and read
// what it accepts as the same value: the whole file, each key of the top dictionary through `lookup` (its last
// value when a key repeats), and each element of the top array, each of them also looked up as a dictionary.
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let limits = DecodingLimits(maxExpandedNodes: 1 << 16)
    let tree = Result { () throws(PropertyListError) in try PropertyList(binary: bytes, limits: limits) }
    let map = Result { () throws(PropertyListError) in try BinaryPropertyListMap(bytes, limits: limits) }
    switch (tree, map) {
    case (.failure(let treeError), .failure(let mapError)):
        guard "\(treeError)" == "\(mapError)", treeError.code == mapError.code else {
            fatalError("the decoder refused with \(treeError), the map with \(mapError)")
        }
    case (.success(let value), .success(let map)):
        sameValues(value, map, object: map.root)
    case (.success, .failure(let error)):
        fatalError("the map refused a file the decoder read: \(error)")
    case (.failure(let error), .success):
        fatalError("the map accepted a file the decoder refused: \(error)")
    }
    return 0
}

/// `object` reads as `value` whole, and key by key (or element by element) one level down.
func sameValues(_ value: PropertyList, _ map: BinaryPropertyListMap, object: Int, level: Int = 0) {
    guard (try? map.value(of: object)) == value else { fatalError("the map read another value") }
    switch value {
    case .dictionary(let entries):
        guard map.kind(of: object) == .dictionary else { fatalError("a dictionary of another kind") }
        for (key, entry) in entries {
            guard let found = map.lookup(key, in: object) else { fatalError("key \(key.debugDescription) not found") }
            if level < 2 { sameValues(entry, map, object: found, level: level + 1) }
        }
        if map.lookup("not a key \u{1F6E9}", in: object) != nil, entries["not a key \u{1F6E9}"] == nil {
            fatalError("an absent key was found")
        }
    case .array(let elements):
        let objects = map.elements(of: object)
        guard map.kind(of: object) == .array, objects.count == elements.count else { fatalError("another array") }
        for (element, found) in zip(elements, objects) where level < 2 {
            sameValues(element, map, object: found, level: level + 1)
        }
    default:
        guard map.kind(of: object) == .other else { fatalError("a scalar of a container's kind") }
    }
}
