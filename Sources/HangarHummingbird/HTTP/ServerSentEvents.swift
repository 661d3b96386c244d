public import Hummingbird
import ServiceLifecycle

/// Responses of server-sent events, the one shape every event stream here has (`/changes`, Hangar Sync's
/// `/sync/events`, Hangar Studio's change stream).
///
/// Structured as Hummingbird's server-sent-events example: the producer and the heartbeat are child tasks of the
/// response body's writer, which ends them and the response when the producer returns, when the client closes its
/// connection (`consumeWithInboundCloseHandler`), when the server shuts down gracefully (`withGracefulShutdownHandler`:
/// the stream then ends cleanly, so the server can finish), or when a write fails.
public enum ServerSentEvents {
    /// The comment sent while nothing happens, so that clients and proxies keep the connection and a client that
    /// left is noticed.
    public static let keepAlive = ": keep-alive\n\n"

    /// A `200` of `contentType` whose body is `opening` (a comment, so a client knows it is following), then every
    /// text `produce` sends (whole events), with `keepAlive` every `heartbeat`, until one of the ends above.
    public static func response(
        to request: Request, contentType: String, opening: String, heartbeat: Duration,
        keepAlive: String = keepAlive,
        produce: @escaping @Sendable (_ send: @escaping @Sendable (String) -> Void) async -> Void
    ) -> Response {
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: opening))
            // nil: the end.
            let (texts, sink) = AsyncStream.makeStream(of: String?.self)
            try await withGracefulShutdownHandler {
                try await request.body.consumeWithInboundCloseHandler { _ in
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        tasks.addTask {
                            await produce { sink.yield($0) }
                            sink.yield(nil)
                        }
                        tasks.addTask {
                            while (try? await Task.sleep(for: heartbeat)) != nil { sink.yield(keepAlive) }
                        }
                        for await text in texts {
                            guard let text else { break }
                            try await writer.write(ByteBuffer(string: text))
                        }
                        tasks.cancelAll()
                    }
                } onInboundClosed: {
                    sink.yield(nil)
                }
            } onGracefulShutdown: {
                sink.yield(nil)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"], body: body)
    }
}
