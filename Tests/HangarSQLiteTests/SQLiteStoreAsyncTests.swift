import Foundation
import HangarTestSupport
import PropertyList
import Synchronization
import Testing

@testable import Hangar
@testable import HangarSQLite

/// The async API under load: many awaiting callers must not each hold a thread while they wait.
@Suite struct SQLiteStoreAsyncTests {
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
        print("SQLiteStoreAsyncTests: \(report.trimmingCharacters(in: .whitespacesAndNewlines))")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // While everyone waits: the cooperative pool's threads (one a core) and a spare, nothing else.
        #expect(waiting - baseline <= cores + 1, "\(report)")
        #expect(probe < Self.holdMilliseconds / 2, "\(report)")
        // While they run: also a thread a connection (5) and the dispatch runtime's own.
        #expect(peak - baseline <= 2 * cores + 5 + 4, "\(report)")
    }

    static let holdMilliseconds = 400

    /// An in-memory store reads on its writer connection: many tasks reading and writing at once take turns on
    /// its queue, and every read sees a committed state.
    @Test func manyTasksOnAnInMemoryStore() async throws {
        let store = try Backend.memory.makeStore(noteConfiguration())
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for writer in 0..<50 {
                group.addTask {
                    try await store.write { transaction in
                        try transaction.save(Note(title: "w", body: "\(writer)"), key: "w\(writer)")
                        try transaction.save(Note(title: "v", body: "\(writer)"), key: "v\(writer)")
                    }
                    return nil
                }
            }
            for reader in 0..<300 {
                group.addTask {
                    let (w, v) = try await store.read { transaction in
                        (
                            try transaction.keys(in: "notes").filter { $0.hasPrefix("w") }.count,
                            try transaction.keys(in: "notes").filter { $0.hasPrefix("v") }.count
                        )
                    }
                    return w == v ? nil : "reader \(reader) saw \(w) w and \(v) v"
                }
            }
            var failures: [String] = []
            for try await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(try await store.read { try $0.count(in: "notes") } == 100)
    }

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
        let store = try SQLiteStore(path: try temporaryDirectory() + "/store.sqlite", store: configuration)
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
        let holders = store.sqliteConfiguration.maximumReaders + 1
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

/// Cancellation and nesting of the async API.
@Suite struct SQLiteStoreAsyncCancellationTests {
    /// Holds the writer (or `count` reader connections) on threads of its own until `release()`.
    final class Holder: Sendable {
        private let holding = DispatchSemaphore(value: 0)
        private let releasing = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let count: Int

        init(_ store: SQLiteStore, writer: Bool, count: Int = 1) {
            self.count = count
            for _ in 0..<count {
                Thread.detachNewThread { [self] in
                    if writer {
                        try? store.write { _ in
                            holding.signal()
                            releasing.wait()
                        }
                    } else {
                        try? store.read { _ in
                            holding.signal()
                            releasing.wait()
                        }
                    }
                    released.signal()
                }
            }
            for _ in 0..<count { holding.wait() }
        }

        func release() {
            for _ in 0..<count { releasing.signal() }
            for _ in 0..<count { released.wait() }
        }
    }

    @Test func aWriterCancelledWhileItWaitsGivesUpItsPlaceAndWritesNothing() async throws {
        let store = try Backend.file.makeStore(noteConfiguration())
        let holder = Holder(store, writer: true)
        let waiting = Task {
            try await store.write { try $0.save(Note(title: "cancelled", body: ""), key: "cancelled") }
        }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        // It gives up while the writer is still held: it does not wait for its turn to fail.
        let outcome = await waiting.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        holder.release()
        // The lock still goes round: the next writer writes, and the cancelled one wrote nothing.
        #expect(try await store.write { try $0.save(Note(title: "next", body: ""), key: "next") } == 1)
        #expect(try await store.read { try $0.exists(in: "notes", key: "cancelled") } == false)
    }

    @Test func aReaderCancelledWhileItWaitsGivesUpItsPlace() async throws {
        let store = try Backend.file.makeStore(noteConfiguration())
        let holder = Holder(store, writer: false, count: store.sqliteConfiguration.maximumReaders)
        let waiting = Task { try await store.read { try $0.count(in: "notes") } }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let outcome = await waiting.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        holder.release()
        #expect(try await store.read { try $0.count(in: "notes") } == 0)
    }

    @Test func aTaskCancelledBeforeItAsksWritesNothing() async throws {
        let store = try Backend.memory.makeStore(noteConfiguration())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.write { try $0.save(Note(title: "never", body: ""), key: "never") }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await store.read { try $0.count(in: "notes") } == 0)
    }

    @Test func aWriteCancelledAfterItStartedIsCommitted() async throws {
        let store = try Backend.file.makeStore(noteConfiguration())
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let task = Task {
            try await store.write { transaction in
                started.signal()
                proceed.wait()
                return try transaction.save(Note(title: "kept", body: ""), key: "kept")
            }
        }
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                started.wait()
                continuation.resume()
            }
        }
        task.cancel()
        proceed.signal()
        #expect(try await task.value == 1)
        #expect(try await store.read { try $0.exists(in: "notes", key: "kept") })
    }

    @Test(arguments: Backend.allCases)
    func anAsyncWriteStartedInsideAWriteWaitsForIt(backend: Backend) async throws {
        let store = try backend.makeStore(noteConfiguration())
        let inner = try Self.writeStartingATask(store)
        #expect(try await inner.value)
    }

    /// A blocking write whose body starts a task that writes too.
    static func writeStartingATask(_ store: SQLiteStore) throws -> Task<Bool, any Error> {
        try store.write { transaction in
            try transaction.save(Note(title: "outer", body: ""), key: "outer")
            // The task inherits the write's task-locals, and waits for its turn instead of stopping.
            return Task {
                try await store.write { transaction in
                    try transaction.exists(in: "notes", key: "outer")
                }
            }
        }
    }

    @Test func aWriteInsideAnAsyncWriteStops() async {
        await #expect(processExitsWith: .failure) {
            let store = try SQLiteStore.inMemory()
            try await store.write { _ in try store.write { _ in } }
        }
    }

    @Test func aReadInsideAnAsyncWriteOfAnInMemoryStoreStops() async {
        await #expect(processExitsWith: .failure) {
            let store = try SQLiteStore.inMemory()
            try await store.write { _ in try store.read { _ in } }
        }
    }

    /// Blocking and async writers on two stores of one file take turns: none ever sees another's write half done.
    @Test func blockingAndAsyncWritersOnTwoStoresExcludeEachOther() async throws {
        let path = try temporaryDirectory() + "/store.sqlite"
        let stores = try (0..<2).map { _ in try SQLiteStore(path: path, store: noteConfiguration()) }
        let watch = OverlapWatch()
        let body: @Sendable (SQLiteWriteTransaction, Int) throws -> Void = { transaction, index in
            watch.enter()
            defer { watch.leave() }
            try transaction.save(Note(title: "\(index)", body: ""), key: "k\(index)")
        }
        let threadsDone = DispatchSemaphore(value: 0)
        for thread in 0..<2 {
            Thread.detachNewThread {
                for index in 0..<50 { try? stores[thread].write { try body($0, thread * 1_000 + index) } }
                threadsDone.signal()
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<100 {
                group.addTask { try await stores[task % 2].write { try body($0, 10_000 + task) } }
            }
            try await group.waitForAll()
        }
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                threadsDone.wait()
                threadsDone.wait()
                continuation.resume()
            }
        }
        #expect(watch.overlaps == 0)
        #expect(try await stores[1].read { try $0.count(in: "notes") } == 200)
    }
}

/// Counts the times a transaction body started while another was running.
final class OverlapWatch: Sendable {
    private let state = Mutex((inside: 0, overlaps: 0))
    func enter() {
        state.withLock { state in
            state.inside += 1
            if state.inside > 1 { state.overlaps += 1 }
        }
    }
    func leave() { state.withLock { $0.inside -= 1 } }
    var overlaps: Int { state.withLock { $0.overlaps } }
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

/// The lender behind the file's writer lock and the reader pool: first come, first served, threads and tasks alike.
@Suite struct LenderTests {
    @Test func waitersAreServedInTheOrderTheyCameAndACancelledOneIsSkipped() async throws {
        let lender = Lender([0])
        let order = ServedOrder()
        let held = lender.borrow()
        var tasks: [Task<Void, any Error>] = []
        let threadsDone = DispatchSemaphore(value: 0)
        for waiter in 0..<12 {
            if waiter % 3 == 2 {
                Thread.detachNewThread {
                    let resource = lender.borrow()
                    order.append(waiter)
                    lender.giveBack(resource)
                    threadsDone.signal()
                }
            } else {
                tasks.append(
                    Task {
                        let resource = try await lender.lease()
                        order.append(waiter)
                        lender.giveBack(resource)
                    })
            }
            // Each asks only once the one before is waiting.
            while lender.waiting < waiter + 1 - (waiter > 4 ? 1 : 0) { try await Task.sleep(for: .milliseconds(1)) }
            if waiter == 4 {
                tasks[3].cancel()  // the fifth waiter, a task
                while lender.waiting > 4 { try await Task.sleep(for: .milliseconds(1)) }
            }
        }
        lender.giveBack(held)
        for (index, task) in tasks.enumerated() {
            if index == 3 {
                await #expect(throws: CancellationError.self) { try await task.value }
            } else {
                try await task.value
            }
        }
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                for _ in 0..<4 { threadsDone.wait() }
                continuation.resume()
            }
        }
        #expect(order.values == [0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11])
        #expect(lender.waiting == 0)
    }
}

/// The order in which waiters were served.
final class ServedOrder: Sendable {
    private let served = Mutex<[Int]>([])
    func append(_ waiter: Int) { served.withLock { $0.append(waiter) } }
    var values: [Int] { served.withLock { $0 } }
}
