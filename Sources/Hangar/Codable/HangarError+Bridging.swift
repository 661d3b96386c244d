extension HangarError {
    /// A `DecodingError`, `EncodingError` or any other error a type's own `Codable` code threw at `path`.
    init(bridging error: any Error, at path: ModelPath) {
        switch error {
        case let error as HangarError:
            self = error
        case DecodingError.keyNotFound(let key, let context):
            self.init(
                .missingKey, "missing key \(key.stringValue.debugDescription)",
                at: ModelPath(codingPath: context.codingPath), underlying: error)
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            self.init(
                .typeMismatch, context.debugDescription, at: ModelPath(codingPath: context.codingPath),
                underlying: error)
        case DecodingError.dataCorrupted(let context):
            self.init(
                .invalidValue, context.debugDescription, at: ModelPath(codingPath: context.codingPath),
                underlying: error)
        case EncodingError.invalidValue(_, let context):
            self.init(
                .invalidValue, context.debugDescription, at: ModelPath(codingPath: context.codingPath),
                underlying: error)
        default:
            self.init(.invalidValue, String(describing: error), at: path, underlying: error)
        }
    }
}
