public import Logging
import Synchronization

/// Collects every record logged through ``logger`` (from trace up), for tests of what a store logs.
public final class LogRecorder: Sendable {
    /// One logged record: its level, message and metadata (the logger's and the call's, merged).
    public struct Record: Sendable, CustomStringConvertible {
        /// The record's level.
        public let level: Logger.Level
        /// The message.
        public let message: String
        /// The metadata, flattened to text.
        public let metadata: [String: String]

        /// The whole record as text: level, message and every metadata key and value.
        public var description: String {
            "\(level) \(message) "
                + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                    separator: " ")
        }
    }

    private let stored = Mutex<[Record]>([])

    /// A recorder with nothing recorded yet.
    public init() {}

    /// A logger whose records (every level) this recorder keeps.
    public var logger: Logger {
        var logger = Logger(label: "hangar.test") { _ in RecordingLogHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every record so far, in the order they were logged.
    public var records: [Record] { stored.withLock { $0 } }

    /// The records whose message is `message`.
    public func records(_ message: String) -> [Record] { records.filter { $0.message == message } }

    fileprivate func append(_ record: Record) { stored.withLock { $0.append(record) } }
}

/// The log handler of a ``LogRecorder``.
struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, call in call }
        recorder.append(
            LogRecorder.Record(
                level: event.level, message: event.message.description, metadata: merged.mapValues { $0.description }))
    }
}
