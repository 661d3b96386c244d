// Writes the canonical dump of property-list files as CoreFoundation decodes them: the CF oracle for the
// wild-corpus test, in the grammar of Scripts/canonical-dump.py (the plistlib oracle), so that the two can be
// compared with each other and with Tests/PropertyListTests/Support/CanonicalDump.swift.
//
//     swift Scripts/cf-dump.swift FILE...                # print each dump (or "rejected: …")
//     swift Scripts/cf-dump.swift --write DIR FILE...    # write DIR/<file name>.txt for each file CF reads,
//                                                        # and DIR/REJECTED.txt: one "name<TAB>CF's error" a line
//
// Run it on Linux: there Foundation's `PropertyListSerialization` is swift-corelibs-foundation, which calls
// `CFPropertyListCreateWithData` of the CoreFoundation C sources it ships (CFPropertyList.c with the XML parser,
// CFBinaryPList.c, CFOldStylePList.c). This script calls that function directly rather than through
// `PropertyListSerialization`, whose bridging to Swift values would turn a CFString into a `String` (repairing
// lone surrogates) and a UID into an opaque object; here every value is read with CF's own accessors:
// strings as their UTF-16 units, `CFBoolean` apart from `CFNumber`, 128-bit integers whole, UIDs by value.
//
// Grammar (Scripts/canonical-dump.py): s"…" string (JSON with ensure_ascii), i123 integer, r<16 hex> real bits,
// d<16 hex> date (seconds since 2001 as a double's bits), x<hex> data, T/F, [a,b], {"k":v,…} with keys sorted
// by code point, a UID as {"CF$UID":iN}.
import CoreFoundation
import Foundation

enum DumpError: Error { case unknownType(String) }

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

func hex64(_ bits: UInt64) -> String {
    String(format: "%016llx", bits)
}

/// JSON string as Python's `json.dumps(..., ensure_ascii=True)` writes it, from UTF-16 units.
func jsonQuoted(_ units: [UInt16]) -> String {
    var out = "\""
    for unit in units {
        switch unit {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        case 0x08: out += "\\b"
        case 0x0C: out += "\\f"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
        default: out += String(format: "\\u%04x", unit)
        }
    }
    return out + "\""
}

func units(of string: CFString) -> [UInt16] {
    let length = CFStringGetLength(string)
    var buffer = [UInt16](repeating: 0, count: length)
    CFStringGetCharacters(string, CFRangeMake(0, length), &buffer)
    return buffer
}

/// The code points of UTF-16 `units` (a lone surrogate stands for itself), for Python's key order.
func codePoints(_ units: [UInt16]) -> [UInt32] {
    var out: [UInt32] = []
    var index = 0
    while index < units.count {
        let unit = UInt32(units[index])
        if (0xD800...0xDBFF).contains(unit), index + 1 < units.count,
            (0xDC00...0xDFFF).contains(UInt32(units[index + 1]))
        {
            out.append(0x10000 + ((unit - 0xD800) << 10) + (UInt32(units[index + 1]) - 0xDC00))
            index += 2
        } else {
            out.append(unit)
            index += 1
        }
    }
    return out
}

func integerText(_ number: CFNumber) -> String {
    // kCFNumberSInt128Type (17, private): CF keeps integers above Int64.max (up to UInt64.max) in 128 bits,
    // as CFSInt128Struct { int64_t high; uint64_t low; }.
    if let wideType = CFNumberType(rawValue: 17) {
        var wide: (high: Int64, low: UInt64) = (0, 0)
        if CFNumberGetValue(number, wideType, &wide) {
            if wide.high == 0 { return "i\(wide.low)" }
            if wide.high == -1, wide.low >= 1 << 63 { return "i\(Int64(bitPattern: wide.low))" }
        }
    }
    var narrow: Int64 = 0
    CFNumberGetValue(number, .sInt64Type, &narrow)
    return "i\(narrow)"
}

func dump(_ value: CFTypeRef) throws -> String {
    let type = CFGetTypeID(value)
    if type == CFStringGetTypeID() {
        return "s" + jsonQuoted(units(of: unsafeBitCast(value, to: CFString.self)))
    }
    if type == CFBooleanGetTypeID() {
        return CFBooleanGetValue(unsafeBitCast(value, to: CFBoolean.self)) ? "T" : "F"
    }
    if type == CFNumberGetTypeID() {
        let number = unsafeBitCast(value, to: CFNumber.self)
        if CFNumberIsFloatType(number) {
            var real: Double = 0
            CFNumberGetValue(number, .float64Type, &real)
            return "r" + hex64(real.bitPattern)
        }
        return integerText(number)
    }
    if type == CFDateGetTypeID() {
        return "d" + hex64(CFDateGetAbsoluteTime(unsafeBitCast(value, to: CFDate.self)).bitPattern)
    }
    if type == CFDataGetTypeID() {
        let data = unsafeBitCast(value, to: CFData.self)
        let count = CFDataGetLength(data)
        guard count > 0, let base = CFDataGetBytePtr(data) else { return "x" }
        return "x" + hex(UnsafeBufferPointer(start: base, count: count))
    }
    if type == CFArrayGetTypeID() {
        let array = unsafeBitCast(value, to: CFArray.self)
        var parts: [String] = []
        for index in 0..<CFArrayGetCount(array) {
            guard let element = CFArrayGetValueAtIndex(array, index) else { continue }
            parts.append(try dump(unsafeBitCast(element, to: CFTypeRef.self)))
        }
        return "[" + parts.joined(separator: ",") + "]"
    }
    if type == CFDictionaryGetTypeID() {
        let dictionary = unsafeBitCast(value, to: CFDictionary.self)
        let count = CFDictionaryGetCount(dictionary)
        var keys = [UnsafeRawPointer?](repeating: nil, count: count)
        var values = [UnsafeRawPointer?](repeating: nil, count: count)
        CFDictionaryGetKeysAndValues(dictionary, &keys, &values)
        var entries: [(order: [UInt32], text: String)] = []
        for (key, element) in zip(keys, values) {
            guard let key, let element else { continue }
            let keyObject = unsafeBitCast(key, to: CFTypeRef.self)
            guard CFGetTypeID(keyObject) == CFStringGetTypeID() else {
                throw DumpError.unknownType("dictionary key of type \(CFGetTypeID(keyObject))")
            }
            let keyUnits = units(of: unsafeBitCast(keyObject, to: CFString.self))
            let text = jsonQuoted(keyUnits) + ":" + (try dump(unsafeBitCast(element, to: CFTypeRef.self)))
            entries.append((codePoints(keyUnits), text))
        }
        entries.sort { $0.order.lexicographicallyPrecedes($1.order) }
        return "{" + entries.map(\.text).joined(separator: ",") + "}"
    }
    #if !canImport(Darwin)
        if type == _CFKeyedArchiverUIDGetTypeID() {
            let uid = unsafeBitCast(value, to: CFKeyedArchiverUID.self)
            return "{\"CF$UID\":i\(_CFKeyedArchiverUIDGetValue(uid))}"
        }
    #endif
    throw DumpError.unknownType(String(describing: CFCopyTypeIDDescription(type)))
}

/// CF's value of the file at `path`, or its error.
func read(_ path: String) -> Result<(CFPropertyList, CFPropertyListFormat), Error> {
    guard let bytes = FileManager.default.contents(atPath: path) else {
        return .failure(CocoaError(.fileReadNoSuchFile))
    }
    let data = bytes.withUnsafeBytes { raw in
        CFDataCreate(nil, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
    }
    var format = CFPropertyListFormat.binaryFormat_v1_0
    var error: Unmanaged<CFError>?
    guard let value = CFPropertyListCreateWithData(nil, data, 0, &format, &error) else {
        // CF's message is in the debug description ("Encountered unknown tag … on line 3"); the localized
        // description only says "error 3840".
        var description = "CF gave no error"
        if let cfError = error?.takeRetainedValue() {
            description = "CF error \(CFErrorGetCode(cfError))"
            let key = CFStringCreateWithCString(nil, "NSDebugDescription", CFStringBuiltInEncodings.UTF8.rawValue)
            if let userInfo = CFErrorCopyUserInfo(cfError), let key,
                let debug = CFDictionaryGetValue(userInfo, unsafeBitCast(key, to: UnsafeRawPointer.self)),
                CFGetTypeID(unsafeBitCast(debug, to: CFTypeRef.self)) == CFStringGetTypeID()
            {
                let units = units(of: unsafeBitCast(debug, to: CFString.self))
                description = String(decoding: units, as: UTF16.self)
            }
        }
        return .failure(NSError(domain: "CF", code: 0, userInfo: [NSLocalizedDescriptionKey: description]))
    }
    return .success((value.takeRetainedValue(), format))
}

func formatName(_ format: CFPropertyListFormat) -> String {
    switch format {
    case .openStepFormat: "openStep"
    case .xmlFormat_v1_0: "xml"
    case .binaryFormat_v1_0: "binary"
    default: "?"
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var outputDirectory: String?
if arguments.first == "--write", arguments.count >= 2 {
    outputDirectory = arguments[1]
    arguments.removeFirst(2)
}
var rejected: [String] = []
for path in arguments {
    let name = (path as NSString).lastPathComponent
    switch read(path) {
    case .success(let (value, format)):
        do {
            let text = try dump(value)
            if let outputDirectory {
                try (text + "\n").write(
                    toFile: outputDirectory + "/" + name + ".txt", atomically: true, encoding: .utf8)
                print("\(formatName(format))\t\(name)")
            } else {
                print(text)
            }
        } catch {
            FileHandle.standardError.write("\(name): cannot dump: \(error)\n".data(using: .utf8) ?? Data())
            exit(1)
        }
    case .failure(let error):
        let message = (error as NSError).localizedDescription.replacingOccurrences(of: "\n", with: " ")
        rejected.append("\(name)\t\(message)")
        if outputDirectory == nil { print("rejected: \(message)") } else { print("rejected\t\(name)") }
    }
}
if let outputDirectory {
    try (rejected.sorted().map { $0 + "\n" }.joined())
        .write(toFile: outputDirectory + "/REJECTED.txt", atomically: true, encoding: .utf8)
}
