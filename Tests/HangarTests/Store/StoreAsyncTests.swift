import Foundation
import Hangar
import PropertyList
import Testing

/// The async API under load: many awaiting callers must not each hold a thread while they wait.
@Suite struct StoreAsyncTests {
    static let readers = 1_000
    static let writers = 100
    static let preloaded = 50

    /// 1,000 tasks reading and 100 writing, all at once, on a file store. Run in a child process so the
    /// thread count is this workload's alone: it prints its figures on standard error and fails when a read or
    /// write went wrong. First every connection is held by a blocking caller for a while, so all the tasks
    /// wait: then the process may use no thread for them beyond the cooperative pool's, and the global dispatch
    /// queue stays free (a probe sent to it runs at once, not after the wait). Then they all run.
    @Test func thousandsOfAwaitingCallersUseABoundedNumberOfThreads() async throws {
        let result = try await #require(
            processExitsWith: .success, observing: [\.standardErrorContent]
        ) {
            try await Self.runWorkload()
        }
        let report = String(decoding: result.standardErrorContent, as: UTF8.self)
        let figures = Self.figures(in: report)
        let waiting = try #require(figures["waitingPeak"], "no figures in \(report)")
        let baseline = try #require(figures["baseline"])
        let probe = try #require(figures["waitingProbe"])
        let peak = try #require(figures["peak"])
        print("StoreAsyncTests: \(report.trimmingCharacters(in: .whitespacesAndNewlines))")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // While everyone waits: the cooperative pool's threads (one a core) and a spare, nothing else.
        #expect(waiting - baseline <= cores + 1, "\(report)")
        #expect(probe < Self.holdMilliseconds / 2, "\(report)")
        // While they run: also a thread a connection (5) and the dispatch runtime's own.
        #expect(peak - baseline <= 2 * cores + 5 + 4, "\(report)")
    }

    static let holdMilliseconds = 400

    static func figures(in report: String) -> [String: Int] {
        var figures: [String: Int] = [:]
        for field in report.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }

    /// The workload, in the child process. Exits with a failure when a result is wrong.
    static func runWorkload() async throws {
        // On a thread of its own: with every dispatch thread parked waiting for the store (as before the store
        // served async callers from its connections' queues), nothing else would ever run again.
        Thread.detachNewThread {
            sleep(60)
            FileHandle.standardError.write(Data("stuck after 60 s with \(ThreadSampler.count()) threads\n".utf8))
            exit(2)
        }
        let configuration = noteConfiguration()
        let store = try Store(path: try temporaryDirectory() + "/store.sqlite", configuration: configuration)
        try await store.write { transaction in
            for index in 0..<preloaded {
                try transaction.save(
                    Note(title: "n\(index)", body: String(repeating: "x", count: 200)), key: "n\(index)")
            }
        }
        // Hold the writer and every reader connection on threads of our own.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let holders = configuration.maximumReaders + 1
        for holder in 0..<holders {
            Thread.detachNewThread {
                if holder == 0 {
                    try? store.write { _ in
                        holding.signal()
                        release.wait()
                    }
                } else {
                    try? store.read { _ in
                        holding.signal()
                        release.wait()
                    }
                }
                released.signal()
            }
        }
        for _ in 0..<holders { holding.wait() }
        let sampler = ThreadSampler()
        let baseline = ThreadSampler.count()
        let started = Date()
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let revision = try await store.write { transaction in
                        try transaction.save(Note(title: "w\(writer)", body: "written"), key: "w\(writer)")
                    }
                    return revision == 1 ? nil : "writer \(writer) got revision \(revision)"
                }
            }
            for reader in 0..<readers {
                group.addTask {
                    let key = "n\(reader % preloaded)"
                    let (title, written) = try await store.read { transaction in
                        let note = try transaction.load(Note.self, key: key)?.value
                        return (note?.title, try transaction.count(in: "notes") - preloaded)
                    }
                    guard title == key, (0...writers).contains(written) else {
                        return "reader \(reader) read \(title ?? "nothing") and \(written) written notes"
                    }
                    return nil
                }
            }
            try await Task.sleep(for: .milliseconds(holdMilliseconds))
            let waiting = sampler.restart()
            for _ in 0..<holders { release.signal() }
            var failures: [String] = []
            for try await failure in group { if let failure { failures.append(failure) } }
            for _ in 0..<holders { released.wait() }
            return (failures, waiting)
        }
        let seconds = Date().timeIntervalSince(started)
        let running = sampler.stop()
        let total = try await store.read { try $0.count(in: "notes") }
        FileHandle.standardError.write(
            Data(
                ("baseline=\(baseline) waitingPeak=\(failures.1.threads) waitingProbe=\(failures.1.probeMilliseconds) "
                    + "peak=\(running.threads) probe=\(running.probeMilliseconds) "
                    + "milliseconds=\(Int(seconds * 1000)) total=\(total)\n").utf8))
        guard failures.0.isEmpty, total == preloaded + writers else {
            FileHandle.standardError.write(Data("failures: \(failures.0.prefix(5)) total \(total)\n".utf8))
            exit(1)
        }
    }
}

/// Samples the number of threads of this process (`/proc/self/task`) every millisecond on a thread of its own,
/// keeping the peak; and every 5 ms sends a probe to the global dispatch queue, keeping the longest it waited
/// to run (long when the global queue's threads are all taken).
final class ThreadSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var probeDelay: TimeInterval = 0
    /// When the probe still waiting to run was sent.
    private var probeSent: Date?
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init() {
        peak = Self.count()
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let count = Self.count()
                lock.withLock { peak = max(peak, count) }
                usleep(1_000)
            }
            done.signal()
        }
        Thread.detachNewThread { [self] in
            let ran = DispatchSemaphore(value: 0)
            while lock.withLock({ running }) {
                let sent = Date()
                lock.withLock { probeSent = sent }
                DispatchQueue.global().async { ran.signal() }
                ran.wait()
                let delay = Date().timeIntervalSince(sent)
                lock.withLock {
                    probeDelay = max(probeDelay, delay)
                    probeSent = nil
                }
                usleep(5_000)
            }
            done.signal()
        }
    }

    /// The peak thread count and longest probe so far; starts over.
    func restart() -> (threads: Int, probeMilliseconds: Int) {
        lock.withLock {
            defer {
                peak = 0
                probeDelay = 0
            }
            return (peak, Int(longestProbe * 1000))
        }
    }

    /// Stops sampling; the peak thread count seen and the longest a probe waited, in milliseconds.
    func stop() -> (threads: Int, probeMilliseconds: Int) {
        lock.withLock { running = false }
        done.wait()
        done.wait()
        return lock.withLock { (peak, Int(longestProbe * 1000)) }
    }

    /// The longest a probe waited, counting the one waiting now. Call with the lock held.
    private var longestProbe: TimeInterval {
        max(probeDelay, probeSent.map { Date().timeIntervalSince($0) } ?? 0)
    }

    /// The threads of this process now (0 where `/proc` is missing).
    static func count() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
