import Hangar
import Testing

/// Runs `body`, expects a `ModelError`, and checks its kind and its description word for word.
func expectModelError<R>(
    _ kind: ModelError.Kind,
    _ description: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(ModelError) -> R
) {
    do {
        let result = try body()
        Issue.record("expected \(kind) error \"\(description)\", got \(result)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.kind == kind, sourceLocation: sourceLocation)
        #expect(error.description == description, sourceLocation: sourceLocation)
    }
}
