import Hangar
import Hummingbird
import PropertyList

/// What every route answers with: the negotiated format, a value written in it, an integer query parameter (the
/// one parser of the HTTP layer, Hangar Studio's too).
package enum Answers {
    /// The formats `request`'s `Accept` admits, best first; 406 when it offers none this server writes.
    static func formats(_ request: Request) throws(HangarHTTPError) -> [BodyFormat] {
        let formats = BodyFormat.acceptable(accept: request.headers[.accept])
        guard !formats.isEmpty else {
            throw HangarHTTPError(
                .notAcceptable,
                "None of the types in Accept is served: use application/json, application/x-plist+xml or "
                    + "application/x-plist")
        }
        return formats
    }

    /// `value` in the first of `formats` that can hold it, with `status` and, for a document, its revision as
    /// the ETag. A value no admitted format can hold (a NaN in JSON, a control character in XML) is 406 naming
    /// what the formats could not write, never a 500: the store keeps it, and binary property lists hold it.
    static func respond(
        _ value: PropertyList, in formats: [BodyFormat], status: HTTPResponse.Status = .ok, revision: Int? = nil
    ) throws(HangarHTTPError) -> Response {
        var failures: [String] = []
        for format in formats {
            let bytes: [UInt8]
            do {
                bytes = try format.encode(value)
            } catch {
                failures.append("\(format.rawValue.uppercased()) cannot hold it (\(error))")
                continue
            }
            var headers: HTTPFields = [.contentType: format.mediaType]
            if let revision { headers[.eTag] = RevisionTag.header(revision) }
            return Response(
                status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        throw HangarHTTPError(
            .notAcceptable,
            "The answer cannot be written in the types Accept admits: \(failures.joined(separator: "; ")); "
                + "application/x-plist holds every value")
    }

    /// `bytes`, already encoded in `format`, as a 200 with the revision as ETag.
    static func respond(bytes: [UInt8], in format: BodyFormat, revision: Int) -> Response {
        Response(
            status: .ok, headers: [.contentType: format.mediaType, .eTag: RevisionTag.header(revision)],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An integer query parameter in `range`; `nil` when absent, 400 naming it otherwise (an empty value too).
    package static func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws(HangarHTTPError)
        -> Int?
    {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HangarHTTPError(
                .badRequest, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
