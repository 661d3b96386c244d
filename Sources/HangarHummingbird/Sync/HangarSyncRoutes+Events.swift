import HangarSync
import Hummingbird
import ServiceLifecycle

extension HangarSyncRoutes {
    /// The event stream of `notices`: a comment line first (the client knows it is following), then one
    /// `id: SEQUENCE` / `event: change` / `data: SEQUENCE` event per notice, and a `: keep-alive` comment every
    /// ``eventHeartbeat``.
    ///
    /// Structured as pilots-server's `/changes` stream: the notices and the heartbeat are child tasks of the
    /// response body's writer, which ends them and the response when the client closes its connection, when the
    /// server shuts down gracefully (the stream ends cleanly, so the server can finish), or when the notices end
    /// (the store's feed failed: the client reconnects and pulls, which answers 410 if it must resync).
    func events(
        _ notices: AsyncThrowingStream<SyncNotice, any Error>, after checkpoint: SyncCheckpoint, request: Request
    )
        -> Response
    {
        let heartbeat = eventHeartbeat
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: SyncHTTP.eventStreamOpening(after: checkpoint)))
            let (texts, sink) = AsyncStream.makeStream(of: String?.self)
            try await withGracefulShutdownHandler {
                try await request.body.consumeWithInboundCloseHandler { _ in
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        tasks.addTask {
                            do {
                                for try await notice in notices {
                                    sink.yield(SyncHTTP.event(notice))
                                }
                            } catch {}
                            sink.yield(nil)
                        }
                        tasks.addTask {
                            while (try? await Task.sleep(for: heartbeat)) != nil { sink.yield(SyncHTTP.keepAlive) }
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
        return Response(
            status: .ok, headers: [.contentType: SyncHTTP.eventStreamMediaType, .cacheControl: "no-cache"], body: body)
    }
}
