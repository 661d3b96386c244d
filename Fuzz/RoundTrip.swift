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
