import ArgumentParser
import Foundation
import PropertyList

/// A value's type as `plutil -type` names it, and as `-expect` takes it.
enum ValueType: String, ExpressibleByArgument, CaseIterable {
    case bool, integer, float, string, date, data, array, dictionary, uid

    init(_ value: PropertyList) {
        switch value {
        case .boolean: self = .bool
        case .integer: self = .integer
        case .real: self = .float
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .array: self = .array
        case .dictionary: self = .dictionary
        case .uid: self = .uid
        }
    }

    /// The name with its article, for messages: "a string", "an integer".
    var article: String {
        switch self {
        case .integer, .array: "an \(rawValue)"
        default: "a \(rawValue)"
        }
    }
}

extension PropertyList {
    /// Fails unless this value, found at `path`, is of type `expected` (when one is given).
    func check(_ expected: ValueType?, at path: PlistKeyPath) throws(PlistKeyPathFailure) {
        guard let expected else { return }
        let found = ValueType(self)
        guard found == expected else {
            throw PlistKeyPathFailure(
                description: "The value at key path \(path) is \(found.article), not \(expected.article)")
        }
    }
}

/// The `-TYPE VALUE` of `insert` and `replace`: exactly one of `-bool`, `-integer`, `-float`, `-string`,
/// `-date`, `-data`, `-xml`, `-json` with its text, or `-array`, `-dictionary` for an empty one.
struct ValueArgument: ParsableArguments {
    @Option(name: .customLong("bool", withSingleDash: true), parsing: .unconditional, help: "YES, NO, true or false.")
    var bool: String?

    @Option(name: .customLong("integer", withSingleDash: true), parsing: .unconditional, help: "A decimal integer.")
    var integer: String?

    @Option(name: .customLong("float", withSingleDash: true), parsing: .unconditional, help: "A real number.")
    var float: String?

    @Option(name: .customLong("string", withSingleDash: true), parsing: .unconditional, help: "A string, as it is.")
    var string: String?

    @Option(
        name: .customLong("date", withSingleDash: true), parsing: .unconditional,
        help: "An ISO 8601 date in UTC (2024-05-01T12:00:00Z).")
    var date: String?

    @Option(name: .customLong("data", withSingleDash: true), parsing: .unconditional, help: "Bytes in base64.")
    var data: String?

    @Option(
        name: .customLong("xml", withSingleDash: true), parsing: .unconditional,
        help: "A whole value as an XML property list.")
    var xml: String?

    @Option(name: .customLong("json", withSingleDash: true), parsing: .unconditional, help: "A whole value as JSON.")
    var json: String?

    @Flag(name: .customLong("array", withSingleDash: true), help: "An empty array.")
    var array = false

    @Flag(name: .customLong("dictionary", withSingleDash: true), help: "An empty dictionary.")
    var dictionary = false

    /// The one type given and its text (none for `-array` and `-dictionary`).
    private var given: [(type: String, text: String?)] {
        let texts: [(String, String?)] = [
            ("bool", bool), ("integer", integer), ("float", float), ("string", string), ("date", date),
            ("data", data), ("xml", xml), ("json", json),
        ]
        var given = texts.compactMap { type, text in text.map { (type, Optional($0)) } }
        if array { given.append(("array", nil)) }
        if dictionary { given.append(("dictionary", nil)) }
        return given
    }

    func validate() throws {
        guard given.count == 1 else {
            throw ValidationError(
                "Give the value as exactly one of -bool, -integer, -float, -string, -date, -data, -xml, -json, "
                    + "-array, -dictionary.")
        }
    }

    /// The value the text spells, or a failure saying why it is not one of its type.
    func value() throws(PlistKeyPathFailure) -> PropertyList {
        guard let (type, text) = given.first else { throw PlistKeyPathFailure(description: "No value given") }
        guard let text else { return type == "array" ? .array([]) : .dictionary([:]) }
        if let value = Self.parse(text, as: type) { return value }
        if type == "xml" || type == "json" {
            do throws(PropertyListError) {
                return type == "xml"
                    ? try PropertyList(xml: Array(text.utf8)) : try PropertyList(json: Array(text.utf8))
            } catch {
                throw PlistKeyPathFailure(description: "The -\(type) value is not a property list: \(error)")
            }
        }
        throw PlistKeyPathFailure(description: "\(text.debugDescription) is not a valid -\(type) value")
    }

    private static func parse(_ text: String, as type: String) -> PropertyList? {
        switch type {
        case "bool":
            switch text.lowercased() {
            case "yes", "true": return .boolean(true)
            case "no", "false": return .boolean(false)
            default: return nil
            }
        case "integer":
            if let signed = Int64(text) { return .integer(.init(signed)) }
            return UInt64(text).map { .integer(.init($0)) }
        case "float": return Double(text).map { .real($0) }
        case "string": return .string(text)
        case "date": return PropertyList.date(fromISO8601Text: text).map { .date($0) }
        case "data": return Data(base64Encoded: text).map { .data([UInt8]($0)) }
        default: return nil
        }
    }
}
