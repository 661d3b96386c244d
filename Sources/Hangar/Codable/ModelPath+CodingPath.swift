/// A coding key for a path step the bridge made: an array index or a plain string key.
struct PathCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

extension ModelPath {
    /// The path as `Codable` spells it.
    var codingPath: [any CodingKey] {
        components.map { component in
            switch component {
            case .key(let key): PathCodingKey(stringValue: key)
            case .index(let index): PathCodingKey(intValue: index)
            }
        }
    }

    /// The path a `Codable` coding path names; array positions are the bridge's index keys.
    init(codingPath: [any CodingKey]) {
        self.init(
            codingPath.map { key -> Component in
                if let key = key as? PathCodingKey, let index = key.intValue {
                    .index(index)
                } else {
                    .key(key.stringValue)
                }
            }
        )
    }
}
