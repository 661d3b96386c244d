public import Hummingbird

/// Answers every error a route throws as an ``HangarHTTPError``, the one error shape of the HTTP layer: an ``HangarHTTPError`` as
/// it is, a ``Hangar/HangarError`` by what its code means (``HangarHTTPError/init(_:)``: a conflict is 412, a stored newer
/// major 409, …), another `HTTPResponseError` with its status, anything else 500.
///
/// A request no route matches is left to the router (its 404). Add it after the middleware that should see the
/// answered status (`MetricsMiddleware` counts a 412 as a 412).
public struct HangarErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The middleware.
    public init() {}

    /// Runs the rest of the chain, its errors answered as ``HangarHTTPError``.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The router names the endpoint before the chain runs when a route matched; without one, the request is
        // on its way to the router's own "no such route" (which names its endpoint `NotFound` as it throws).
        let routed = context.endpointPath != nil
        do {
            return try await next(request, context)
        } catch {
            guard routed else { throw error }
            throw HangarHTTPError.from(error)
        }
    }
}
