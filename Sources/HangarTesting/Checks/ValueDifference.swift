import PropertyList

/// Where two values differ, key path by key path: `airplanes[1].engineHours: was 1840, is 1841`.
struct ValueDifference: Sendable, CustomStringConvertible {
    let path: String
    let old: PropertyList?
    let new: PropertyList?

    var description: String {
        let place = path.isEmpty ? "the top level" : path
        switch (old, new) {
        case (let old?, let new?): return "\(place): was \(Self.show(old)), is \(Self.show(new))"
        case (let old?, nil): return "\(place): was \(Self.show(old)), is absent"
        case (nil, let new?): return "\(place): was absent, is \(Self.show(new))"
        case (nil, nil): return place
        }
    }

    /// Every difference from `old` to `new`, in key order; the version keys of an envelope included.
    static func all(from old: PropertyList, to new: PropertyList, limit: Int = 100) -> [ValueDifference] {
        var found: [ValueDifference] = []
        walk(old, new, path: "", into: &found, limit: limit)
        return found
    }

    private static func walk(
        _ old: PropertyList, _ new: PropertyList, path: String, into found: inout [ValueDifference], limit: Int
    ) {
        guard found.count < limit, old != new else { return }
        switch (old, new) {
        case (.dictionary(let a), .dictionary(let b)):
            for key in a.keys where b[key] == nil {
                found.append(ValueDifference(path: join(path, key), old: a[key], new: nil))
            }
            for (key, value) in b {
                let child = join(path, key)
                if let before = a[key] {
                    walk(before, value, path: child, into: &found, limit: limit)
                } else {
                    found.append(ValueDifference(path: child, old: nil, new: value))
                }
            }
        case (.array(let a), .array(let b)) where a.count == b.count:
            for (index, (before, after)) in zip(a, b).enumerated() {
                walk(before, after, path: path + "[\(index)]", into: &found, limit: limit)
            }
        default:
            found.append(ValueDifference(path: path, old: old, new: new))
        }
    }

    private static func join(_ path: String, _ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 95
            }
        guard plain else { return path + "[" + key.debugDescription + "]" }
        return path.isEmpty ? key : path + "." + key
    }

    /// A value on one line, short: scalars as they are, containers by their size.
    static func show(_ value: PropertyList) -> String {
        switch value {
        case .string(let text):
            let shown =
                text.unicodeScalars.count > 60
                ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(60))) + "…" : text
            return shown.debugDescription
        case .integer(let integer): return "\(integer)"
        case .real(let real): return "real \(real)"
        case .boolean(let flag): return "\(flag)"
        case .date(let seconds): return "date \(seconds)"
        case .data(let bytes): return "\(bytes.count) bytes of data"
        case .array(let elements): return "an array of \(elements.count)"
        case .dictionary(let fields): return "a dictionary of \(fields.count) keys"
        case .uid(let uid): return "uid \(uid)"
        }
    }
}
