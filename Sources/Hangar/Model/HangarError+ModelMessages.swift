import Foundation
import PropertyList

extension HangarError {
    /// `missing key "name"`, reported at the dictionary's path.
    static func missingKey(_ key: String, at path: ModelPath = .root) -> HangarError {
        HangarError(.missingKey, "missing key \(key.debugDescription)", at: path)
    }

    /// `expected integer, found string "12"`.
    static func typeMismatch(expected: String, found: PropertyList, at path: ModelPath = .root) -> HangarError {
        HangarError(
            .typeMismatch, "expected \(expected), found \(found.briefDescription)",
            withoutValues: "expected \(expected), found \(found.kindName)", at: path)
    }

    /// `integer -1 is out of range for UInt64`.
    static func outOfRange(_ found: PropertyList, for type: Any.Type, at path: ModelPath = .root) -> HangarError {
        HangarError(
            .outOfRange, "\(found.briefDescription) is out of range for \(type)",
            withoutValues: "\(found.kindName) is out of range for \(type)", at: path)
    }

    /// `string "jet" is not a valid EngineKind`.
    static func invalidValue(_ found: PropertyList, for type: Any.Type, at path: ModelPath = .root) -> HangarError {
        HangarError(
            .invalidValue, "\(found.briefDescription) is not a valid \(type)",
            withoutValues: "\(found.kindName) is not a valid \(type)", at: path)
    }
}

extension HangarError {
    /// A model error whose `message` shows the value it found (`found string "12"`) and whose
    /// `messageWithoutValues` names only its kind (`found string`), for descriptions of the other layers.
    init(_ code: Code, _ message: String, withoutValues: String, at path: ModelPath) {
        self.init(code, message, at: path)
        messageWithoutValues = withoutValues
    }
}

extension PropertyList {
    /// The value's kind and a short, bounded rendering of it: `string "12"`, `integer -1`, `array (3 elements)`.
    var briefDescription: String {
        switch self {
        case .string(let value):
            let limit = 40
            let shown = value.count > limit ? String(value.prefix(limit)) + "…" : value
            return "string \(shown.debugDescription)"
        case .integer(let value): return "integer \(value)"
        case .real(let value): return "real \(value)"
        case .boolean(let value): return "boolean \(value)"
        case .date(let seconds) where !seconds.isFinite:
            return "date \(seconds)"
        case .date(let seconds):
            return "date \(Date(timeIntervalSinceReferenceDate: seconds).formatted(.iso8601))"
        case .data(let bytes): return "data (\(bytes.count) \(bytes.count == 1 ? "byte" : "bytes"))"
        case .array(let elements): return "array (\(elements.count) \(elements.count == 1 ? "element" : "elements"))"
        case .dictionary(let entries): return "dictionary (\(entries.count) \(entries.count == 1 ? "key" : "keys"))"
        case .uid(let value): return "uid \(value)"
        }
    }
}
