import Foundation

/// Runs a blocking `body` (waiting for a child process, polling a file) on a thread of its own: the test's
/// cooperative threads are never blocked, and `body` never waits for one of them, which the other suites of a
/// parallel `swift test` may be holding on two cores.
public func offThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
