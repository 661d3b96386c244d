import Foundation
import HangarHummingbird
import Hummingbird

/// A studio's token: at least 128 random bits, as hexadecimal text.
public enum StudioToken {
    /// A fresh token of 256 random bits (the system's secure generator), as 64 hexadecimal digits.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<4 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    /// Whether `given` is `token`, compared in time that does not depend on where they differ.
    static func matches(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}

/// Who may use the studio: the token (query, then cookie) on everything but the static assets, and a same-origin
/// request for every POST.
struct StudioAccess: Sendable {
    let token: String?
    /// The cookie the token becomes; named per studio (the cookie jar does not tell ports apart).
    let cookieName: String

    init(token: String?) {
        self.token = token
        var generator = SystemRandomNumberGenerator()
        cookieName = "hangar_studio_" + String(generator.next() as UInt32, radix: 16)
    }

    /// Refuses a request without the token: 401 with none (neither `?token=` nor the cookie), 403 with another.
    func check(_ request: Request) throws(HangarHTTPError) {
        guard let token else { return }
        let given = request.uri.queryParameters.get("token") ?? cookie(cookieName, in: request)
        guard let given else {
            throw HangarHTTPError(.unauthorized, "This studio needs its token: open the URL `hangar studio` printed")
        }
        guard StudioToken.matches(given, token) else {
            throw HangarHTTPError(.forbidden, "The token is not this studio's")
        }
    }

    /// The `Set-Cookie` value that keeps the token for the studio's later requests.
    func setCookie(path: String) -> String? {
        guard let token else { return nil }
        return "\(cookieName)=\(token); Path=\(path.isEmpty ? "/" : path); HttpOnly; SameSite=Strict"
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    func cookie(_ name: String, in request: Request) -> String? {
        for field in request.headers where field.name == .cookie {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                if parts[0].trimmingCharacters(in: .whitespaces).utf8.elementsEqual(name.utf8) {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// Refuses (403) a request that is not same-origin: `Sec-Fetch-Site` other than `same-origin`, or an
    /// `Origin` other than this server's; a request with neither is refused too (no cross-site form can write).
    static func requireSameOrigin(_ request: Request) throws(HangarHTTPError) {
        let fetchSite = request.headers.first { $0.name.canonicalName == "sec-fetch-site" }?.value
        if let fetchSite, !fetchSite.utf8.elementsEqual("same-origin".utf8) {
            throw HangarHTTPError(
                .forbidden, "Writes must come from the studio's own pages (Sec-Fetch-Site: \(fetchSite))")
        }
        guard let origin = request.headers[.origin] else {
            guard fetchSite != nil else {
                throw HangarHTTPError(.forbidden, "Writes must come from the studio's own pages (no Origin)")
            }
            return
        }
        let host = request.head.authority ?? ""
        let same = ["http://" + host, "https://" + host].contains { $0.utf8.elementsEqual(origin.utf8) }
        guard same, !host.isEmpty else {
            throw HangarHTTPError(.forbidden, "Writes must come from the studio's own pages (Origin \(origin))")
        }
    }
}

/// Lets through only the requests that carry the studio's token (``StudioAccess/check(_:)``): every route but the
/// static assets is added after it.
struct StudioAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try access.check(request)
        return try await next(request, context)
    }
}
