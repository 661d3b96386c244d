import HTTPTypes
import HangarHummingbird
import Hummingbird

/// The first middleware of every studio route: an error the route throws is answered as the HTTP layer answers
/// it (``HangarHummingbird/HangarHTTPError``, a store's error by its code: the same statuses as the document and
/// sync routes), and every answer, error or not, carries ``StudioHeaders``.
struct StudioResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = try HangarHTTPError.from(error).response(from: request, context: context)
        }
        StudioHeaders.secure(&response.headers)
        return response
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
