import Foundation
import PropertyList

/// Renders a value as `plutil -p` does:
///
///     {
///       "name" => "Amelia"
///       "hours" => 1250
///       "fleet" => [
///         0 => "N12345"
///       ]
///     }
///
/// A UID prints as plutil prints CF's `CFKeyedArchiverUID`, `<CFKeyedArchiverUID>{value = 2}`, without the two
/// memory addresses plutil shows inside the angle brackets (they change from run to run).
enum TreePrinter {
    static func render(_ value: PropertyList) -> String {
        var out = ""
        render(value, indent: 0, into: &out)
        out += "\n"
        return out
    }

    private static func render(_ value: PropertyList, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        switch value {
        case .string(let string): out += PropertyList.quoted(string)
        case .integer(let integer): out += integer.description
        case .real(let real): out += real.description
        case .boolean(let flag): out += flag ? "true" : "false"
        case .date(let seconds): out += formatDate(seconds)
        case .data(let bytes): out += dataDescription(bytes)
        case .uid(let uid): out += "<CFKeyedArchiverUID>{value = \(uid)}"
        case .array(let elements):
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += "\(pad)\(index) => "
                render(element, indent: indent + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case .dictionary(let entries):
            out += "{\n"
            // Sorted by UTF-16 code units, as `plutil -p` lists them, whatever order the file had.
            for (key, element) in entries.sortedByKey() {
                out += "\(pad)\(PropertyList.quoted(key)) => "
                render(element, indent: indent + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    private static func dataDescription(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(24).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        let ellipsis = bytes.count > 24 ? "..." : ""
        return "{length = \(bytes.count), bytes = 0x\(shown)\(ellipsis)}"
    }

    /// `2004-10-26 10:33:33 +0000`, with `.SSS` milliseconds when there is a fraction, as plutil prints dates;
    /// in the calendar the XML writer uses (proleptic Gregorian, so a date before 1582 shows the same day as
    /// `hangar convert xml1` writes; Foundation's formatters would switch to the Julian calendar).
    private static func formatDate(_ seconds: Double) -> String {
        guard let iso = PropertyList.iso8601Text(forDate: seconds, fractionDigits: 3) else {
            return "\(seconds) seconds after 2001-01-01 00:00:00 +0000"
        }
        // `YYYY-MM-DDTHH:MM:SS[.f]Z`, the year possibly with a minus sign.
        var text = String(iso.dropLast()).replacingOccurrences(of: "T", with: " ")
        if let dot = text.firstIndex(of: ".") {
            let digits = text.distance(from: dot, to: text.endIndex) - 1
            text += String(repeating: "0", count: max(0, 3 - digits))
        }
        return text + " +0000"
    }
}
