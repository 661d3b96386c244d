import Hangar
import PropertyList

/// Whether a stored document matches a frozen shape: every required key present, every value of a kind the shape
/// allows there, every class tag allowed. Keys the shape does not know (a newer minor's) are not counted against it.
extension FormatShape {
    func matches(_ envelope: PropertyList) -> Bool {
        guard case .dictionary(let fields) = envelope else { return false }
        let content = fields.filter { !Shrinker.isVersionKey($0.key) }
        return matches(.dictionary(content), at: [])
    }

    private func matches(_ value: PropertyList, at path: [ShapeStep]) -> Bool {
        if !path.isEmpty, let entry = entries[path] {
            if !entry.kinds.isEmpty, !entry.kinds.contains(ValueKind(value)) { return false }
            if let tags = entry.tags, case .dictionary(let fields) = value, case .string(let tag)? = fields["class"],
                tags[ExactString(tag)] == nil
            {
                return false
            }
        }
        switch value {
        case .array(let elements):
            return elements.allSatisfy { matches($0, at: path + [.element]) }
        case .dictionary(let fields):
            var fieldsPath = path
            if case .string(let tag)? = fields["class"], entries[path]?.tags != nil {
                fieldsPath.append(.tag(ExactString(tag)))
            }
            let isMap = entries[fieldsPath + [.anyKey]] != nil
            for child in children(of: fieldsPath) {
                guard case .key(let key) = child.last, entries[child]?.presence == .required else { continue }
                if fields[key.string] == nil { return false }
            }
            for (key, field) in fields where !(key.hasSameBytes(as: "class") && fieldsPath.count > path.count) {
                let child = fieldsPath + [isMap ? .anyKey : .key(ExactString(key))]
                if entries[child] != nil || isMap, !matches(field, at: child) { return false }
            }
            return true
        default:
            return true
        }
    }
}
