import Foundation
import PropertyList

/// A property-list value as the pages show it: a typed tree whose every node says its type, with dictionaries as
/// ordered `[key, node]` entries (their keys as they are, in the document's order), integers and reals as text
/// (JavaScript numbers would round them), dates as ISO 8601 text, data as its size and base64, UIDs as such.
enum StudioTree {
    /// The most data bytes a node carries (the download has them all).
    static let dataPreview = 4_096

    static func node(_ value: PropertyList) -> PropertyList {
        var result: PropertyList.Dictionary = ["type": .string(value.kindName)]
        switch value {
        case .string(let text): result["value"] = .string(text)
        case .integer(let integer): result["value"] = .string(integer.description)
        case .real(let real): result["value"] = .string(real.description)
        case .boolean(let flag): result["value"] = .boolean(flag)
        case .date(let seconds):
            result["value"] = .string(PropertyList.iso8601Text(forDate: seconds, fractionDigits: 3) ?? String(seconds))
        case .data(let bytes):
            result["size"] = .integer(.init(bytes.count))
            result["value"] = .string(Data(bytes.prefix(dataPreview)).base64EncodedString())
            result["truncated"] = .boolean(bytes.count > dataPreview)
        case .uid(let uid): result["value"] = .string(String(uid))
        case .array(let items): result["items"] = .array(items.map { node($0) })
        case .dictionary(let entries):
            result["entries"] = .array(entries.map { .array([.string($0.key), node($0.value)]) })
        }
        return .dictionary(result)
    }

    /// One step of a path into a value: a dictionary key or an array index.
    enum Step {
        case key(String)
        case index(Int)

        var json: PropertyList {
            switch self {
            case .key(let key): .dictionary(["key": .string(key)])
            case .index(let index): .dictionary(["index": .integer(.init(index))])
            }
        }
    }

    /// What differs between `before` and `after`, by path: keys and items added, removed, or changed (a leaf whose
    /// value or type differs). Dictionary keys are matched by their Unicode scalars, as the value model keeps them.
    static func diff(_ before: PropertyList, _ after: PropertyList, at path: [Step] = []) -> [PropertyList] {
        switch (before, after) {
        case (.dictionary(let a), .dictionary(let b)):
            var entries: [PropertyList] = []
            for (key, value) in a {
                if let other = b[key] {
                    entries += diff(value, other, at: path + [.key(key)])
                } else {
                    entries.append(entry("removed", path + [.key(key)], before: value, after: nil))
                }
            }
            for (key, value) in b where a[key] == nil {
                entries.append(entry("added", path + [.key(key)], before: nil, after: value))
            }
            return entries
        case (.array(let a), .array(let b)):
            var entries: [PropertyList] = []
            for index in 0..<max(a.count, b.count) {
                let step = path + [.index(index)]
                if index < a.count && index < b.count {
                    entries += diff(a[index], b[index], at: step)
                } else if index < a.count {
                    entries.append(entry("removed", step, before: a[index], after: nil))
                } else {
                    entries.append(entry("added", step, before: nil, after: b[index]))
                }
            }
            return entries
        default:
            return before == after ? [] : [entry("changed", path, before: before, after: after)]
        }
    }

    static func entry(_ change: String, _ path: [Step], before: PropertyList?, after: PropertyList?) -> PropertyList {
        var entry: PropertyList.Dictionary = ["change": .string(change), "path": .array(path.map(\.json))]
        if let before { entry["before"] = node(before) }
        if let after { entry["after"] = node(after) }
        return .dictionary(entry)
    }
}
