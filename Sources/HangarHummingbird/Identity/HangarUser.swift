/// The user a request is served for, while its route runs: set by ``IdentityMiddleware`` from the app's
/// ``RequestIdentity``; `nil` outside one (an open server).
///
/// A user id is compared by its bytes everywhere Hangar uses it (RFC 7519 §2 compares a `sub` with no
/// transformation or canonicalization): `"jos\u{E9}"` and `"jose\u{301}"` are two users.
public enum HangarUser {
    /// The authenticated user of the request being served.
    @TaskLocal public static var current: String?

    /// The user whose documents the request sees under `ownership`: `nil` (everything) when shared, the request's
    /// user when per user; 401 when per user and the request has none (no ``IdentityMiddleware`` ran).
    static func scope(_ ownership: HangarRouteOptions.Ownership) throws(HangarHTTPError) -> String? {
        switch ownership {
        case .shared: return nil
        case .perUser:
            guard let user = current else {
                var error = HangarHTTPError(.unauthorized, "This route needs an authenticated user")
                error.headers[.wwwAuthenticate] = "Bearer"
                throw error
            }
            return user
        }
    }
}
