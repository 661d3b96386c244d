/// Why a sync request failed: the one error shape of HangarSync. The protocol names the failure with a
/// ``Code``; the HTTP binding (``SyncHTTP``) maps codes to statuses on the server and statuses back to codes on
/// the client.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The server could not be reached, or the connection failed before an answer.
        case unreachable
        /// The server answered something this client does not understand.
        case malformedAnswer
        /// The server refused the request (over HTTP: any 4xx status but 410): retrying the same request will not
        /// help.
        case refused
        /// The server failed (over HTTP: 5xx); retrying later may help.
        case serverFailed
        /// The checkpoint is not usable because the changes after it were pruned: resync from a snapshot (HTTP 410,
        /// cause `pruned`).
        case resyncNeeded
        /// The checkpoint is not usable because the server's history is not the one it continued: another store
        /// or epoch, or a store restored from an older copy (HTTP 410, cause `history`). Resync from a snapshot,
        /// and offer back what the server no longer has.
        case historyChanged
        /// The request itself is invalid (bad names, a malformed body; HTTP 400).
        case invalidRequest
        /// The request names a collection that does not sync there (HTTP 404).
        case notFound
        /// The request's body is larger than the server reads (HTTP 413).
        case tooLarge
    }

    /// What went wrong.
    public let code: Code
    /// Why, for people.
    public let message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
