public import Hummingbird

/// Who makes a request: what an app implements to authenticate its users (a session cookie, an API key, a
/// token from its identity provider), or ``BearerJWTIdentity`` for HS256 bearer tokens.
public protocol RequestIdentity: Sendable {
    /// The user `request` proves, or why it proves none (the answer is then 401 with that reason). The id is
    /// used as it is, compared by its bytes.
    func user(of request: Request) async -> Result<String, IdentityRefusal>
}

/// Why a request proves no user: one line, answered with 401 and `WWW-Authenticate`.
public struct IdentityRefusal: Error, Sendable {
    /// What is wrong, on one line.
    public let reason: String
    /// The `WWW-Authenticate` challenge (`Bearer` by default).
    public var challenge: String

    /// A refusal for `reason`.
    public init(_ reason: String, challenge: String = "Bearer") {
        self.reason = reason
        self.challenge = challenge
    }
}

/// Requires a user on every route but the public paths: runs the rest of the chain with ``HangarUser/current``
/// set to the user the app's ``RequestIdentity`` finds, and answers 401 (`WWW-Authenticate`, one line of
/// text) when it finds none.
public struct IdentityMiddleware<Context: RequestContext>: RouterMiddleware {
    /// How requests are authenticated.
    public let identity: any RequestIdentity
    /// Paths served without a user (`/health`, say), compared by their bytes.
    public let publicPaths: [String]

    /// The middleware for `identity`, with `publicPaths` open to everyone.
    public init(_ identity: any RequestIdentity, publicPaths: [String] = []) {
        self.identity = identity
        self.publicPaths = publicPaths
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if publicPaths.contains(where: { $0.utf8.elementsEqual(path.utf8) }) { return try await next(request, context) }
        switch await identity.user(of: request) {
        case .success(let user):
            return try await HangarUser.$current.withValue(user) { try await next(request, context) }
        case .failure(let refusal):
            return Response(
                status: .unauthorized,
                headers: [.wwwAuthenticate: refusal.challenge, .contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: refusal.reason + "\n")))
        }
    }
}
