import HangarSync
import Hummingbird

extension HangarSyncRoutes {
    /// The event stream of `notices` (``ServerSentEvents``): a comment line first (the client knows it is following),
    /// then one `id: SEQUENCE` / `event: change` / `data: SEQUENCE` event per notice, and a `: keep-alive` comment
    /// every ``eventHeartbeat``. The notices ending (the store's feed failed) ends it: the client reconnects and
    /// pulls, which answers 410 if it must resync.
    func events(
        _ notices: AsyncThrowingStream<SyncNotice, any Error>, after checkpoint: SyncCheckpoint, request: Request
    ) -> Response {
        ServerSentEvents.response(
            to: request, contentType: SyncHTTP.eventStreamMediaType,
            opening: SyncHTTP.eventStreamOpening(after: checkpoint), heartbeat: eventHeartbeat,
            keepAlive: SyncHTTP.keepAlive
        ) { send in
            do {
                for try await notice in notices { send(SyncHTTP.event(notice)) }
            } catch {}
        }
    }
}
