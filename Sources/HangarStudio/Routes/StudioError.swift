import HTTPTypes
import Hangar
import Hummingbird

/// An answer other than success: a status and one line of text, sent as `{"error": "…"}`.
struct StudioError: Error, Sendable {
    let status: HTTPResponse.Status
    let reason: String

    init(_ status: HTTPResponse.Status, _ reason: String) {
        self.status = status
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// A store's error by what it means: a conflict is 409, a newer major 409, a missing document 404, bad input
    /// 400, a read-only store 403, anything else 500. The reason is the error's one line (never a body).
    init(_ error: HangarError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .conflict, .newerMajor, .duplicate: .conflict
            case .notFound: .notFound
            case .readOnly: .forbidden
            case .changesTooOld: .gone
            case .missingKey, .typeMismatch, .outOfRange, .invalidValue, .unknownClassTag, .disallowedClassTag,
                .unrepresentable, .notAnEnvelope, .missingVersion, .invalidVersion, .unsupportedOldMajor,
                .migrationFailed, .invalidDocument, .reservedKey, .invalidName:
                .badRequest
            default: .internalServerError
            }
        self.init(status, error.description)
    }

    /// The JSON answer.
    func response() -> Response {
        StudioJSON.response(["error": .string(reason)], status: status)
    }
}

/// The headers every studio answer carries: a strict Content-Security-Policy (scripts and styles from the studio
/// only, no inline code, no frames), no sniffing, no referrer, nothing cached but the assets.
enum StudioHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { headers[referrerPolicy] = "no-referrer" }
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}
