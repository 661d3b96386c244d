extension SyncHTTP {
    // MARK: Writing (the server)

    /// The comment that opens an event stream (the client then knows it is following).
    public static func eventStreamOpening(after checkpoint: SyncCheckpoint) -> String {
        ": following changes after \(checkpoint.through)\n\n"
    }

    /// The event of one notice: `id: SEQUENCE`, `event: change`, `data: SEQUENCE`.
    public static func event(_ notice: SyncNotice) -> String {
        "id: \(notice.sequence)\nevent: change\ndata: \(notice.sequence)\n\n"
    }

    /// The comment a server sends while nothing commits, so clients and proxies keep the connection.
    public static let keepAlive = ": keep-alive\n\n"

    // MARK: Reading (the clients)

    /// Reads an event stream's bytes as they come, in pieces of any size: each whole `change` event (or event
    /// without a name) whose `id` is a sequence is a ``SyncNotice``; comments (keep-alives) and other events are
    /// skipped. Lines may end with LF or CRLF.
    public struct EventParser: Sendable {
        /// The bytes of the event not complete yet.
        private var pending: [UInt8] = []

        /// The longest event read, in bytes: a stream that sends more without ending an event is not Hangar
        /// Sync's (its events are a few dozen bytes).
        public static let maximumEventSize = 64 << 10

        /// A parser at the start of a stream.
        public init() {}

        /// Reads `bytes`: the notices of the events they complete, in order.
        /// ``SyncError/Code/malformedAnswer`` when an event grows past ``maximumEventSize``.
        public mutating func read(_ bytes: some Sequence<UInt8>) throws(SyncError) -> [SyncNotice] {
            pending.append(contentsOf: bytes)
            var notices: [SyncNotice] = []
            var start = 0
            var index = 0
            let newline = UInt8(ascii: "\n")
            let carriageReturn = UInt8(ascii: "\r")
            // An event ends with an empty line: LF LF, or LF CR LF (a CRLF line after a line's end).
            while index + 1 < pending.count {
                var end: Int?
                if pending[index] == newline {
                    if pending[index + 1] == newline {
                        end = index + 2
                    } else if pending[index + 1] == carriageReturn, index + 2 < pending.count,
                        pending[index + 2] == newline
                    {
                        end = index + 3
                    }
                }
                guard let end else {
                    index += 1
                    continue
                }
                if let notice = Self.notice(in: pending[start..<index]) { notices.append(notice) }
                start = end
                index = end
            }
            pending.removeFirst(start)
            guard pending.count <= Self.maximumEventSize else {
                throw SyncError(.malformedAnswer, "The event stream sent an event of more than 64 KiB")
            }
            return notices
        }

        /// The notice one event's lines describe: `event: change` (or no event name) with a numeric `id`.
        static func notice(in event: ArraySlice<UInt8>) -> SyncNotice? {
            var id: Int?
            var isChange = true
            for line in event.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
                // A comment starts with a colon; a field is NAME, or NAME: VALUE (one leading space dropped).
                guard line.first != UInt8(ascii: ":"), let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                    continue
                }
                var value = line[line.index(after: colon)...]
                if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
                switch Array(line[..<colon]) {
                case Array("id".utf8): id = Int(String(decoding: value, as: UTF8.self))
                case Array("event".utf8):
                    isChange = value.elementsEqual("change".utf8) || value.elementsEqual("message".utf8)
                default: break
                }
            }
            guard let id, isChange else { return nil }
            return SyncNotice(sequence: id)
        }
    }
}
