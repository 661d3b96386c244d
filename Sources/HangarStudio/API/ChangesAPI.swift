import Foundation
import Hangar
import HangarHummingbird
import Hummingbird
import Logging
import PropertyList

extension HangarStudio {
    /// `GET api/changes?collection=C&limit=N`: the last N changes (newest last) and the sequence to follow from.
    func recentChanges(_ request: Request) async throws -> Response {
        let collection = StudioParameters.text(request, "collection")
        let limit = try StudioParameters.integer(request, "limit", in: 1...1000) ?? 50
        let (last, changes) = try await store.read { reader in
            let last = try await reader.lastChangeSequence()
            var since = max(0, last - limit)
            var changes: [Change] = []
            // Read back in windows until `limit` changes of the collection are found or the start is reached.
            while true {
                let window: [Change]
                do {
                    window = try await reader.changes(since: since, in: collection, limit: nil)
                } catch let error as HangarError where error.code == .changesTooOld {
                    break
                }
                changes = window
                guard changes.count < limit, since > 0, collection != nil else { break }
                since = max(0, since - limit * 8)
            }
            return (last, Array(changes.suffix(limit)))
        }
        return StudioJSON.response([
            "last": StudioJSON.int(last), "changes": .array(changes.map { .dictionary(Self.json($0)) }),
        ])
    }

    /// `GET api/changes/events?since=N&collection=C`: server-sent events, one per change after N as it commits,
    /// until the page leaves or the server stops (a graceful shutdown ends the stream at once).
    func changeEvents(_ request: Request, logger: Logger) async throws -> Response {
        let collection = StudioParameters.text(request, "collection")
        var since = try StudioParameters.integer(request, "since", in: 0...Int.max)
        if let lastEventID = request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value,
            !lastEventID.isEmpty
        {
            since = try Answers.integer(lastEventID, name: "Last-Event-ID", in: 0...Int.max)
        }
        let start: Int
        if let since { start = since } else { start = try await store.read { try await $0.lastChangeSequence() } }
        let feed = store.follow(after: start, in: collection)
        return ServerSentEvents.response(
            to: request, contentType: "text/event-stream", opening: ": following changes after \(start)\n\n",
            heartbeat: options.eventStreamHeartbeat
        ) { send in
            do {
                for try await change in feed {
                    let json = try PropertyList.dictionary(Self.json(change)).encoded(as: .json)
                    send("id: \(change.sequence)\nevent: change\ndata: \(String(decoding: json, as: UTF8.self))\n\n")
                }
            } catch is CancellationError {
            } catch {
                logger.warning("The studio's change stream ended: \(error)")
            }
        }
    }

    static func json(_ change: Change) -> PropertyList.Dictionary {
        [
            "sequence": StudioJSON.int(change.sequence), "transaction": StudioJSON.int(change.transaction),
            "collection": .string(change.collection), "key": .string(change.key),
            "kind": .string(change.kind.rawValue), "revision": StudioJSON.int(change.revision),
            "version": StudioJSON.version(change.version.major, change.version.minor),
            "class": StudioJSON.optional(change.classTag), "committedAt": StudioJSON.date(change.committedAt),
        ]
    }
}
