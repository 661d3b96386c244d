import Foundation
import Hummingbird
import JWTKit

/// The user a request is served for: the `sub` of its bearer token, while a route of a server with an auth key
/// (``PilotsAPIOptions/authKey``) runs; `nil` in the open scope (a server without one).
public enum PilotsUser {
    /// The authenticated user of the request being served.
    @TaskLocal public static var current: String?
}

/// Requires `Authorization: Bearer JWT` on every route but `GET /health`: an HS256 token signed with the
/// server's key, not expired (`exp`, when present), whose `sub` names the user. The routes run with
/// ``PilotsUser/current`` set to that user. Anything else is 401 with `WWW-Authenticate: Bearer` and one line of
/// text.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The raw bytes of the HS256 key.
    let key: [UInt8]
    /// The shortest HS256 key accepted (the hash's size): a shorter one accepts no token.
    static var minimumKeySize: Int { 32 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if request.uri.path == "/health" { return try await next(request, context) }
        let user: String
        switch await verify(request.headers[.authorization]) {
        case .success(let verified): user = verified
        case .failure(let reason): return Self.unauthorized(reason)
        }
        return try await PilotsUser.$current.withValue(user) { try await next(request, context) }
    }

    /// The user the `Authorization` header proves, or why it proves none.
    func verify(_ header: String?) async -> Result<String, Unauthorized> {
        guard let header else { return .failure(Unauthorized("A bearer token is required (Authorization: Bearer)")) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(Unauthorized("The Authorization header must be Bearer TOKEN"))
        }
        guard key.count >= Self.minimumKeySize else {
            return .failure(Unauthorized("The server's auth key is shorter than 32 bytes: no token is accepted"))
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        let claims: UserClaims
        do {
            claims = try await keys.verify(String(parts[1]).trimmingCharacters(in: .whitespaces), as: UserClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            return .failure(Unauthorized("The bearer token has expired"))
        } catch {
            return .failure(Unauthorized("The bearer token is not valid (signature, algorithm or claims)"))
        }
        guard let user = claims.sub?.value, !user.isEmpty else {
            return .failure(Unauthorized("The bearer token names no user (sub)"))
        }
        return .success(user)
    }

    /// Why a request is not authenticated.
    struct Unauthorized: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func unauthorized(_ why: Unauthorized) -> Response {
        Response(
            status: .unauthorized,
            headers: [.wwwAuthenticate: "Bearer", .contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: why.reason + "\n")))
    }
}

/// The claims a bearer token carries: `sub` (the user) and, optionally, `exp`.
struct UserClaims: JWTPayload {
    var sub: SubjectClaim?
    var exp: ExpirationClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp?.verifyNotExpired()
    }
}
