import Foundation
public import Hummingbird
import JWTKit
import PropertyList

/// `Authorization: Bearer JWT` with an HS256 key: the user is the token's `sub`.
///
/// A token is accepted only when its header names exactly `"alg": "HS256"` (the algorithm is pinned: `none`,
/// `RS256`, another HMAC or none at all are refused, whatever the signature; RFC 8725 §3.1) and carries no `crit`
/// (this server understands no extension, so a critical one is refused; RFC 7515 §4.1.11), its HS256 signature
/// is the key's, its `exp` (when present) is in the future and its `nbf` (when present) is not (RFC 7519 §4.1.4,
/// §4.1.5), and its `sub` is non-empty text. The `sub` is the user id as its bytes are.
public struct BearerJWTIdentity: RequestIdentity {
    /// The raw bytes of the HS256 key.
    let key: [UInt8]
    /// The shortest HS256 key accepted (the hash's size): a shorter one accepts no token.
    public static var minimumKeySize: Int { 32 }

    /// Tokens signed with `key` (its raw bytes, at least ``minimumKeySize`` of them).
    public init(key: [UInt8]) { self.key = key }

    public func user(of request: Request) async -> Result<String, IdentityRefusal> {
        guard let header = request.headers[.authorization] else {
            return .failure(IdentityRefusal("A bearer token is required (Authorization: Bearer)"))
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(IdentityRefusal("The Authorization header must be Bearer TOKEN"))
        }
        return await user(ofToken: String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    /// The user `token` proves, or why it proves none.
    public func user(ofToken token: String) async -> Result<String, IdentityRefusal> {
        guard key.count >= Self.minimumKeySize else {
            return .failure(IdentityRefusal("The server's auth key is shorter than 32 bytes: no token is accepted"))
        }
        if let refusal = Self.checkHeader(of: token) { return .failure(refusal) }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        let claims: UserClaims
        do {
            claims = try await keys.verify(token, as: UserClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            let notYet = error.failedClaim is NotBeforeClaim
            return .failure(
                IdentityRefusal(notYet ? "The bearer token is not valid yet (nbf)" : "The bearer token has expired"))
        } catch {
            return .failure(IdentityRefusal("The bearer token is not valid (signature, algorithm or claims)"))
        }
        guard let user = claims.sub?.value, !user.isEmpty else {
            return .failure(IdentityRefusal("The bearer token names no user (sub)"))
        }
        return .success(user)
    }

    /// Why the token's JOSE header is refused: not three parts, not a JSON object, `alg` other than `HS256`, or
    /// a `crit` member; `nil` when it is acceptable.
    static func checkHeader(of token: String) -> IdentityRefusal? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = base64URLDecoded(parts[0]),
            case .dictionary(let header)? = try? PropertyList(json: bytes)
        else {
            return IdentityRefusal("The bearer token is not a JWT (header.payload.signature)")
        }
        guard case .string(let algorithm)? = header["alg"], algorithm.utf8.elementsEqual("HS256".utf8) else {
            return IdentityRefusal("The bearer token must be signed with HS256 (alg)")
        }
        guard header["crit"] == nil else {
            return IdentityRefusal("The bearer token has critical extensions this server does not understand (crit)")
        }
        return nil
    }

    /// The bytes of unpadded base64url text (RFC 7515 §2); `nil` when it is not.
    static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}

/// The claims a bearer token carries: `sub` (the user) and, optionally, `exp` and `nbf`.
struct UserClaims: JWTPayload {
    var sub: SubjectClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp?.verifyNotExpired()
        try nbf?.verifyNotBefore()
    }
}
