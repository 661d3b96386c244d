import Hangar
import Testing

/// Runs `body`, expects a `HangarError`, and checks its kind and its description word for word.
func expectModelError<R>(
    _ kind: HangarError.Code,
    _ description: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(HangarError) -> R
) {
    do {
        let result = try body()
        Issue.record("expected \(kind) error \"\(description)\", got \(result)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == kind, sourceLocation: sourceLocation)
        #expect(error.description == description, sourceLocation: sourceLocation)
    }
}
