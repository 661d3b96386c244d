public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real child process (`hangar-stress`) whose standard output is read line by line as it comes, and
/// which the test kills with SIGKILL. Spawned with posix_spawn so that the pipe's ends are exactly
/// controlled: the parent's end is close-on-exec, so no other process the test runner starts keeps it
/// open and end-of-file arrives as soon as the child dies.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let stderrPath: String
    private let condition = NSCondition()
    private var output: [UInt8] = []
    private var reachedEnd = false
    private var exitStatus: Int32?

    /// `hangar-stress` sits beside the test bundle in the build folder (it is a dependency of the tests).
    public static let executable = ProcessRunner.builtExecutable(named: "hangar-stress") ?? "hangar-stress"

    /// Starts `executable arguments…` (`hangar-stress` unless told), its standard error going to `stderrPath`.
    public init(_ arguments: [String], stderrPath: String, executable: String = ChildProcess.executable) throws {
        self.stderrPath = stderrPath
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // (pipe2 with O_CLOEXEC is not imported; the window until these calls is tiny.)
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(writeEnd)
        guard status == 0 else {
            close(readEnd)
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
        }
        pid = child
        let reader = Thread { [self] in self.readAll(from: readEnd) }
        reader.start()
    }

    private func readAll(from descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            if count > 0 {
                output.append(contentsOf: chunk[..<count])
            } else {
                reachedEnd = true
            }
            condition.broadcast()
            condition.unlock()
            if count <= 0 { break }
        }
        close(descriptor)
    }

    /// Waits until the child's first line is `line`; false if it printed something else, ended or time ran out.
    public func waitForFirstLine(_ line: String, timeout: TimeInterval) -> Bool {
        let wanted = Array((line + "\n").utf8)
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while output.count < wanted.count && !reachedEnd {
            if !condition.wait(until: deadline) { return false }
        }
        return output.starts(with: wanted)
    }

    /// Waits until the output contains `text`; false if the child ended or time ran out.
    ///
    /// Each wake-up searches only the bytes that came since the last one (and the `text.count - 1` before them, for
    /// a match split across reads): a child printing thousands of lines is not slowed by a search of all its output
    /// per line, under the lock the reader needs to take the next bytes.
    public func waitForOutput(containing text: String, timeout: TimeInterval) -> Bool {
        let needle = Array(text.utf8)
        guard let first = needle.first else { return true }
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var searched = 0
        while true {
            let found = output.withUnsafeBufferPointer { bytes in
                var start = max(0, searched - needle.count + 1)
                while start + needle.count <= bytes.count {
                    guard let candidate = bytes[start...].firstIndex(of: first) else { return false }
                    if candidate + needle.count > bytes.count { return false }
                    if bytes[candidate..<(candidate + needle.count)].elementsEqual(needle) { return true }
                    start = candidate + 1
                }
                return false
            }
            if found { return true }
            searched = output.count
            if reachedEnd || !condition.wait(until: deadline) { return false }
        }
    }

    /// Sends SIGKILL (if still running) and waits for the child; returns its wait status.
    @discardableResult
    public func killAndWait() -> Int32 {
        kill(pid, SIGKILL)
        return waitForExit()
    }

    /// Waits for the child to end; returns its wait status.
    public func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = status
        return status
    }

    /// Waits at most `timeout` seconds for the child to end; returns its wait status, or `nil` if it is still
    /// running.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status
                return status
            }
            if result < 0 && errno != EINTR { return nil }
            if Date() >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Whether the child was ended by SIGKILL (rather than exiting by itself, which means it failed).
    public static func wasKilled(_ status: Int32) -> Bool {
        // WIFSIGNALED / WTERMSIG, which Swift does not import as functions.
        (status & 0x7F) == SIGKILL
    }

    /// The complete lines the child printed, after it ended. A line cut short by the kill is dropped: it was
    /// never fully reported.
    public func completeLines() -> [String] {
        condition.lock()
        while !reachedEnd { condition.wait() }
        let bytes = output
        condition.unlock()
        guard let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return bytes[..<lastNewline].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Everything the child printed, once its output has ended (the child exited and the pipe is drained: a
    /// child can end before the reader has taken its last bytes); `nil` if that takes longer than `timeout`.
    public func outputAtEnd(timeout: TimeInterval) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !reachedEnd {
            if !condition.wait(until: deadline) { return nil }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// What the child has printed so far, decoded as UTF-8 (a line may still be incomplete).
    public var outputSoFar: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// What the child wrote to standard error.
    public var standardError: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }
}
