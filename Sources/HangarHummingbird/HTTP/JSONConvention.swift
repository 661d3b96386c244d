import Foundation
import PropertyList

/// How a JSON body carries the values JSON has no type for, so that a JSON round trip of a document is lossless.
///
/// On the way out every date is an ISO-8601 string in UTC with up to six fraction digits
/// (`1984-03-05T00:00:00Z`, `2001-01-01T00:00:00.25Z`) and every data value a base64 string
/// (``PropertyList/JSONEncodingOptions/lossyDatesAndData``). On the way in, strings stay strings except at the
/// keys the model reads as dates or data: there an ISO-8601 string becomes a date and a base64 string data. A
/// string there that is neither is a 400 naming the key. Dates are exact to the microsecond.
public struct JSONConvention: Sendable {
    /// The top-level content keys the model reads as dates (matched by their bytes).
    public var dateKeys: [String]
    /// The top-level content keys the model reads as data (matched by their bytes).
    public var dataKeys: [String]

    /// A convention for a model with the given date and data keys (none by default: strings stay strings).
    public init(dateKeys: [String] = [], dataKeys: [String] = []) {
        self.dateKeys = dateKeys
        self.dataKeys = dataKeys
    }

    /// `value` (a JSON body, parsed) with the strings at date and data keys read as dates and data.
    func restoringTypes(in value: PropertyList) throws(HangarHTTPError) -> PropertyList {
        guard case .dictionary(var entries) = value else { return value }
        for key in dateKeys {
            guard case .string(let text)? = entries[key] else { continue }
            guard let seconds = PropertyList.date(fromISO8601Text: text) else {
                throw HangarHTTPError(
                    .badRequest,
                    "\(key): expected an ISO-8601 date such as 1984-03-05T00:00:00Z, found string \(text.debugDescription)"
                )
            }
            entries[key] = .date(seconds)
        }
        for key in dataKeys {
            guard case .string(let text)? = entries[key] else { continue }
            guard let bytes = Data(base64Encoded: text) else {
                throw HangarHTTPError(.badRequest, "\(key): expected base64 data, found a string that is not base64")
            }
            entries[key] = .data([UInt8](bytes))
        }
        return .dictionary(entries)
    }
}
