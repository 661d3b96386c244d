import HTTPTypes
import Hangar
import Hummingbird

/// `Hangar-Token`: the commit token (``Hangar/CommitToken``) of a state. Every write's answer carries its commit's;
/// every read's answer the state it is as of; a read sent with one is answered from a state at least that new. A
/// client that echoes the newest token it saw reads its own writes and never goes back in time.
enum TokenHeader {
    /// The header's name.
    static let name: HTTPField.Name = {
        guard let name = HTTPField.Name("Hangar-Token") else { preconditionFailure("Hangar-Token is a field name") }
        return name
    }()

    /// The token a request sends, if any; 400 when it is not one.
    static func token(_ request: Request) throws(HangarHTTPError) -> CommitToken? {
        guard let value = request.headers[name] else { return nil }
        guard let token = CommitToken(value) else {
            throw HangarHTTPError(
                .badRequest, "Hangar-Token must be a token a Hangar answer gave (SEQUENCE or SEQUENCE@WAL position)")
        }
        return token
    }

    /// `response` with `token` in its `Hangar-Token` header.
    static func stamped(_ response: Response, _ token: CommitToken) -> Response {
        var response = response
        response.headers[name] = token.description
        return response
    }
}
