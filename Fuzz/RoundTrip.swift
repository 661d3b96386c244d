// Shared by the fuzz targets: a value that decoded must survive a round trip through `format`.
import PropertyList

/// Encodes `value` as `format`, decodes the bytes with that format's reader and checks the result.
///
/// Binary holds every value, so it must always encode and give back an equal value. With `exact`, the text
/// format the value was read from must do the same: what a reader accepts, its writer must write (XML drops a
/// date's fraction, as Apple's writer does, so such a value only has to come back). Without `exact`, a value the
/// format cannot hold (a date in JSON, a control character in XML) may fail to encode, but never crash.
/// `unrepresentable`: a failure to encode with this code is allowed even when `exact` (the XML reader keeps raw
/// control characters, as CF does, which XML 1.0 cannot hold: its writer must refuse them, with that code).
func roundTrip(
    _ value: PropertyList, as format: PropertyListFormat, exact: Bool = false, allowingUnrepresentable: Bool = false
) {
    let mustHold = format == .binary || exact
    let encoded: [UInt8]
    do {
        encoded = try value.encoded(as: format)
    } catch {
        if allowingUnrepresentable, error.code == .unrepresentable { return }
        if mustHold { fatalError("decoded value failed to encode as \(format): \(error)") }
        return
    }
    let again: PropertyList
    do {
        switch format {
        case .binary: again = try PropertyList(binary: encoded)
        case .xml: again = try PropertyList(xml: encoded)
        case .json: again = try PropertyList(json: encoded)
        case .openStep: again = try PropertyList(openStep: encoded)
        }
    } catch {
        fatalError("re-encoded value failed to decode as \(format): \(error)")
    }
    let lossy = format == .xml && value.firstSubsecondDatePath != nil
    if mustHold, !lossy, again != value { fatalError("round trip through \(format) changed the value") }
}

/// A value holding a UID must come back from XML with its UIDs, as CF writes and reads them (`CF$UID`
/// dictionaries), unless XML cannot tell it apart: a dictionary that is itself `{CF$UID: 0 … 2^32−1}` reads back
/// as a UID, a date's fraction is dropped, and a NaN is written `nan` (its sign and payload, which binary keeps
/// and equality compares, are not). A value XML cannot hold (a control character) may fail to encode.
func uidsSurviveXML(_ value: PropertyList) {
    guard value.holdsUID, !value.holdsUIDShapedDictionary, !value.holdsNaN, value.firstSubsecondDatePath == nil
    else { return }
    let xml: [UInt8]
    do {
        xml = try value.encoded(as: .xml)
    } catch {
        if error.code == .unrepresentable { return }
        fatalError("a value with UIDs failed to encode as XML: \(error)")
    }
    guard let again = try? PropertyList(xml: xml) else { fatalError("XML with UIDs failed to decode") }
    if again != value { fatalError("a value with UIDs changed through XML") }
}

extension PropertyList {
    fileprivate var holdsUID: Bool {
        switch self {
        case .uid: true
        case .array(let elements): elements.contains { $0.holdsUID }
        case .dictionary(let entries): entries.values.contains { $0.holdsUID }
        default: false
        }
    }

    fileprivate var holdsNaN: Bool {
        switch self {
        case .real(let real): real.isNaN
        case .array(let elements): elements.contains { $0.holdsNaN }
        case .dictionary(let entries): entries.values.contains { $0.holdsNaN }
        default: false
        }
    }

    fileprivate var holdsUIDShapedDictionary: Bool {
        switch self {
        case .dictionary(let entries):
            if entries.count == 1, entries.keys[0].utf8.elementsEqual("CF$UID".utf8),
                let integer = entries.values[0].integerValue, let bits = integer.uint64Value, bits <= UInt32.max
            {
                return true
            }
            return entries.values.contains { $0.holdsUIDShapedDictionary }
        case .array(let elements): return elements.contains { $0.holdsUIDShapedDictionary }
        default: return false
        }
    }
}
