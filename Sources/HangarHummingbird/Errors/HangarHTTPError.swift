public import Hangar
public import Hummingbird
import PropertyList

/// An answer other than success, with a one-line reason: the one error shape of HangarHummingbird's routes.
///
/// The body is the reason as one line of `text/plain`, or `{"error":"…"}` when the request's `Accept`
/// negotiates JSON (which is also the default, when there is no `Accept`).
public struct HangarHTTPError: HTTPResponseError, CustomStringConvertible {
    /// The response status.
    public let status: HTTPResponse.Status
    /// What went wrong, on one line.
    public let reason: String
    /// Extra response headers (an `ETag` on a 412, say).
    public var headers: HTTPFields = [:]

    /// An error answered with `status` and `reason` (line breaks become spaces).
    public init(_ status: HTTPResponse.Status, _ reason: String) {
        self.status = status
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    public var description: String { "\(status.code) \(reason)" }

    /// The response: JSON `{"error": reason}` when the client negotiates JSON, else one line of text.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        var body = Array((reason + "\n").utf8)
        let format = BodyFormat.negotiate(accept: request.headers[.accept])
        if format == .json, let json = try? PropertyList.dictionary(["error": .string(reason)]).encoded(as: .json) {
            headers[.contentType] = BodyFormat.json.mediaType
            body = json + [UInt8(ascii: "\n")]
        } else {
            headers[.contentType] = "text/plain; charset=utf-8"
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension HangarHTTPError {
    /// A store's error, answered by what it means: a conflict is 412, a stored newer major or a unique index's
    /// other holder 409, pruned changes 410, a lost connection, timeout or unknown outcome (a failover, say) 503
    /// with `Retry-After: 1` (a retry with the same `Idempotency-Key` is safe), a document the model rejects 400,
    /// and anything else 500; the reason is the error's one-line description.
    public init(_ error: HangarError) {
        self.init(Self.status(for: error.code), error.description)
        if status == .serviceUnavailable { headers[.retryAfter] = "1" }
    }

    /// Any error from a route: an ``HangarHTTPError`` as it is, a ``HangarError`` by its code, anything else 500.
    public static func from(_ error: any Error) -> HangarHTTPError {
        switch error {
        case let error as HangarHTTPError: error
        case let error as HangarError: HangarHTTPError(error)
        case let error as any HTTPResponseError: HangarHTTPError(error.status, String(describing: error))
        default: HangarHTTPError(.internalServerError, String(describing: error))
        }
    }

    private static func status(for code: HangarError.Code) -> HTTPResponse.Status {
        switch code {
        case .conflict: .preconditionFailed
        case .newerMajor, .duplicate: .conflict
        case .notFound: .notFound
        case .changesTooOld: .gone
        case .connectionLost, .timeout, .contention, .serializationFailure, .outcomeUnknown: .serviceUnavailable
        case .missingKey, .typeMismatch, .outOfRange, .invalidValue, .unknownClassTag, .disallowedClassTag,
            .unrepresentable, .notAnEnvelope, .missingVersion, .invalidVersion, .unsupportedOldMajor,
            .migrationFailed, .invalidDocument, .reservedKey, .invalidName, .invalidQuery, .invalidCursor:
            .badRequest
        default: .internalServerError
        }
    }
}
