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
                if let key = key as? PathCodingKey, let index = key.intValue { .index(index) } else { .key(key.stringValue) }
            }
        )
    }
}

extension ModelError {
    /// A `DecodingError`, `EncodingError` or any other error a type's own `Codable` code threw at `path`.
    init(bridging error: any Error, at path: ModelPath) {
        switch error {
        case let error as ModelError:
            self = error
        case DecodingError.keyNotFound(let key, let context):
            self.init(.missingKey, "missing key \(key.stringValue.debugDescription)", at: ModelPath(codingPath: context.codingPath), underlying: error)
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            self.init(.typeMismatch, context.debugDescription, at: ModelPath(codingPath: context.codingPath), underlying: error)
        case DecodingError.dataCorrupted(let context):
            self.init(.invalidValue, context.debugDescription, at: ModelPath(codingPath: context.codingPath), underlying: error)
        case EncodingError.invalidValue(_, let context):
            self.init(.invalidValue, context.debugDescription, at: ModelPath(codingPath: context.codingPath), underlying: error)
        default:
            self.init(.invalidValue, String(describing: error), at: path, underlying: error)
        }
    }
}
