import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback HTTP/1.1 proxy between a client and a server that injects faults on demand.
///
/// Each request is read whole and sent to the server on a connection of its own. An ordinary answer is read whole,
/// then, as told, passed on, dropped after the server committed (the client's connection closed), cut after some
/// bytes of its body or inside its head, or the request is dropped before it reaches the server, delayed, or sent
/// twice (the second answer passed on). An event stream (`Accept: text/event-stream`) is relayed as it comes until
/// either side closes or ``cutStreams()`` cuts it. ``partition(_:)`` makes the server unreachable (connections
/// refused, or accepted and left hanging) until ``heal()``. One connection per request.
final class FaultProxy: @unchecked Sendable {
    enum Fault: Sendable, Equatable {
        /// No fault: this request goes through (to let some pass before a fault).
        case pass
        case dropRequest
        case dropAnswer
        case duplicate
        /// The request waits this many seconds before it is sent on (a client that gives up sooner sees a
        /// timeout, and the server still gets the request later).
        case delay(TimeInterval)
        /// The request waits until ``releaseHeld()`` before it is sent on (a delay of the test's choosing).
        case hold
        /// The answer's head and the first bytes of its body (at most this many, always fewer than all) reach
        /// the client, then the connection closes: a response cut off while it streamed (an answer without a
        /// body is dropped). An event stream is cut after this many bytes in all, head included.
        case cutAnswer(afterBytes: Int)
        /// The answer's first bytes (this many, fewer than its head: inside the status line or the headers)
        /// reach the client, then the connection closes. (FoundationNetworking's URLSession ends the process
        /// there on Linux, swift-corelibs-foundation#5285; AsyncHTTPSyncTransport throws.)
        case cutHead(atByte: Int)
    }

    /// How a partitioned server looks from the client.
    enum Partition: Sendable {
        /// Connections are refused (nothing listens on the proxy's port).
        case refuse
        /// Connections are accepted and never answered (until healed; then closed unanswered).
        case hang
    }

    let port: UInt16
    private let serverPort: UInt16
    private let listener: Mutex<Int32>
    private let faults = Mutex<[Fault]>([])
    private let forwarded = Mutex(0)
    /// Requests (not event streams) being handled: read, held, sent on or answered.
    private let busy = Mutex(0)
    private let partitioned = Mutex<Partition?>(nil)
    /// The client side of every event stream being relayed, and connections left hanging.
    private let streams = Mutex<Set<Int32>>([])
    private let hanging = Mutex<[Int32]>([])
    private let released = Mutex(0)
    private let headLength = Mutex<Int?>(nil)
    private let streamCuts = Mutex<[Int]>([])

    /// A proxy on a free loopback port to the server at `127.0.0.1:serverPort`.
    init(serverPort: UInt16) throws {
        self.serverPort = serverPort
        let descriptor = try Self.listen(port: 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = Mutex(descriptor)
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop(descriptor) }
    }

    /// The next request meets `fault`.
    func inject(_ fault: Fault) { faults.withLock { $0.append(fault) } }

    /// Forgets the faults not met yet.
    func clearFaults() { faults.withLock { $0 = [] } }

    /// How many requests reached the server.
    var requestsForwarded: Int { forwarded.withLock { $0 } }

    /// Waits until no request (event streams aside) is being handled, at most `timeout` seconds; whether it
    /// came to that (delayed requests have then reached the server, or been dropped).
    func waitUntilIdle(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while busy.withLock({ $0 }) > 0 {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return true
    }

    /// The next event stream is cut after `bytes` bytes in all, head included (inside its head when fewer than
    /// it), whatever ``inject(_:)`` queued for other requests.
    func cutNextStream(afterBytes bytes: Int) { streamCuts.withLock { $0.append(bytes) } }

    /// How many cuts of ``cutNextStream(afterBytes:)`` no event stream has met yet.
    var pendingStreamCuts: Int { streamCuts.withLock { $0.count } }

    /// The length of the head (status line and headers, with the blank line) of the last answer the server
    /// gave through the proxy (event streams aside), as the client gets it.
    var lastHeadLength: Int? { headLength.withLock { $0 } }

    /// Lets the requests held so far (``Fault/hold``) go on to the server.
    func releaseHeld() { released.withLock { $0 += 1 } }

    /// How many event streams are being relayed.
    var openStreams: Int { streams.withLock { $0.count } }

    /// Cuts every event stream being relayed now (both connections closed, mid-event or not).
    func cutStreams() {
        streams.withLock { open in
            for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Makes the server unreachable until ``heal()``: event streams are cut, and new connections refused or
    /// left hanging.
    func partition(_ kind: Partition) {
        partitioned.withLock { $0 = kind }
        cutStreams()
        if kind == .refuse {
            listener.withLock { descriptor in
                shutdown(descriptor, Int32(SHUT_RDWR))
                _ = closeDescriptor(descriptor)
                descriptor = -1
            }
        }
    }

    /// Ends a partition: the port listens again, and connections left hanging are closed unanswered.
    func heal() {
        let was = partitioned.withLock { kind in
            defer { kind = nil }
            return kind
        }
        for descriptor in hanging.withLock({ list in
            defer { list = [] }
            return list
        }) {
            shutdown(descriptor, Int32(SHUT_RDWR))
            _ = closeDescriptor(descriptor)
        }
        guard was == .refuse, let descriptor = try? Self.listen(port: port) else { return }
        listener.withLock { $0 = descriptor }
        Thread.detachNewThread { [self] in acceptLoop(descriptor) }
    }

    /// Stops accepting connections (held requests go on).
    func close() {
        releaseHeld()
        listener.withLock { descriptor in
            guard descriptor >= 0 else { return }
            shutdown(descriptor, Int32(SHUT_RDWR))
            _ = closeDescriptor(descriptor)
            descriptor = -1
        }
        heal()
        listener.withLock { descriptor in
            guard descriptor >= 0 else { return }
            shutdown(descriptor, Int32(SHUT_RDWR))
            _ = closeDescriptor(descriptor)
            descriptor = -1
        }
        cutStreams()
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A socket listening on `127.0.0.1:port` (0: a free port), the address reusable at once.
    private static func listen(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, systemListen(descriptor, 64) == 0 else {
            _ = closeDescriptor(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        return descriptor
    }

    private func acceptLoop(_ descriptor: Int32) {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            Self.ignoreBrokenPipe(client)
            if partitioned.withLock({ $0 }) == .hang {
                hanging.withLock { $0.append(client) }
                continue
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { _ = closeDescriptor(client) }
        guard let request = Self.readMessage(client, isRequest: true) else { return }
        if Self.isEventStream(request), let cut = streamCuts.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            relayStream(request, to: client, cutAfter: cut)
            return
        }
        let fault = faults.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if Self.isEventStream(request) {
            if case .cutAnswer(let bytes) = fault {
                relayStream(request, to: client, cutAfter: bytes)
            } else {
                relayStream(request, to: client, cutAfter: nil)
            }
            return
        }
        busy.withLock { $0 += 1 }
        defer { busy.withLock { $0 -= 1 } }
        switch fault {
        case .dropRequest: return
        case .delay(let seconds): Thread.sleep(forTimeInterval: seconds)
        case .hold:
            let generation = released.withLock { $0 }
            while released.withLock({ $0 }) == generation { Thread.sleep(forTimeInterval: 0.01) }
        default: break
        }
        guard partitioned.withLock({ $0 }) == nil else { return }
        var answer = exchange(request)
        if fault == .duplicate { answer = exchange(request) }
        guard let answer else { return }
        let headEnd = (Self.find([13, 10, 13, 10], in: answer) ?? answer.count) + 4
        headLength.withLock { $0 = headEnd }
        switch fault {
        case .dropAnswer: return
        case .cutAnswer(let bytes):
            // Within the body (``Fault/cutHead(atByte:)`` cuts inside the head), so an answer without a body is
            // dropped whole instead.
            guard headEnd < answer.count else { return }
            Self.writeAll(client, Array(answer.prefix(min(headEnd + bytes, answer.count - 1))))
        case .cutHead(let bytes):
            Self.writeAll(client, Array(answer.prefix(min(bytes, headEnd - 1))))
        default: Self.writeAll(client, answer)
        }
    }

    /// Sends an event-stream request on and relays what the server sends, as it comes, until either side closes
    /// or the stream is cut (by ``cutStreams()``, a partition, or after `cutAfter` bytes).
    private func relayStream(_ request: [UInt8], to client: Int32, cutAfter limit: Int?) {
        guard let server = connectToServer() else { return }
        defer { _ = closeDescriptor(server) }
        streams.withLock { _ = $0.insert(client) }
        defer { streams.withLock { _ = $0.remove(client) } }
        Self.writeAll(server, request)
        forwarded.withLock { $0 += 1 }
        var buffer = [UInt8](repeating: 0, count: 16384)
        var relayed = 0
        while true {
            // Poll both: the client closing (or being cut) ends the relay as the server's data does.
            var descriptors = [
                pollfd(fd: server, events: Int16(POLLIN), revents: 0),
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, 1000) >= 0 else { return }
            if descriptors[1].revents != 0 {
                // Nothing more is expected from the client: what it sends is dropped; its end ends the relay.
                if read(client, &buffer, buffer.count) <= 0 { return }
            }
            if descriptors[0].revents != 0 {
                let count = read(server, &buffer, buffer.count)
                if count <= 0 { return }
                let allowed = limit.map { min(count, $0 - relayed) } ?? count
                guard Self.writeAll(client, Array(buffer[0..<allowed])), allowed == count else { return }
                relayed += count
            }
        }
    }

    private func connectToServer() -> Int32? {
        let server = socket(AF_INET, streamSocket, 0)
        guard server >= 0 else { return nil }
        Self.ignoreBrokenPipe(server)
        var address = Self.loopback(port: serverPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            _ = closeDescriptor(server)
            return nil
        }
        return server
    }

    /// Sends `request` to the server on a new connection and reads its whole answer.
    private func exchange(_ request: [UInt8]) -> [UInt8]? {
        guard let server = connectToServer() else { return nil }
        defer { _ = closeDescriptor(server) }
        Self.writeAll(server, request)
        forwarded.withLock { $0 += 1 }
        return Self.readMessage(server, isRequest: false)
    }

    static func isEventStream(_ request: [UInt8]) -> Bool {
        guard let end = find([13, 10, 13, 10], in: request) else { return false }
        return String(decoding: request[0..<end], as: UTF8.self).lowercased().contains("text/event-stream")
    }

    /// One HTTP message: the head, then `Content-Length` bytes (an answer without one: until the connection
    /// ends). A request's `Connection` header becomes `close`.
    static func readMessage(_ descriptor: Int32, isRequest: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var total: Int?
        while true {
            if let total, bytes.count >= total { break }
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { return headEnd != nil && total == nil && !isRequest ? bytes : (total == nil ? nil : bytes) }
            bytes += buffer[0..<count]
            if headEnd == nil, let end = find([13, 10, 13, 10], in: bytes) {
                headEnd = end + 4
                let head = String(decoding: bytes[0..<end], as: UTF8.self)
                var length = 0
                var hasLength = false
                for line in head.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                        hasLength = true
                    }
                }
                if hasLength || isRequest { total = end + 4 + length }
            }
        }
        guard let headEnd else { return bytes }
        // One request per connection, both ways: each side is told the connection closes after this message.
        var head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
        head = head.split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("connection:") }.joined(separator: "\r\n")
        head = head.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n")
        return Array(head.utf8) + bytes[headEnd...]
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count)
        where haystack[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// Writes all of `bytes`; false when the other side is gone.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, sendFlags) }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// A write to a connection the other side closed fails instead of raising SIGPIPE (which ends the process).
    static func ignoreBrokenPipe(_ descriptor: Int32) {
        #if canImport(Darwin)
            var yes: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}

#if canImport(Darwin)
    private let streamSocket = SOCK_STREAM
    private let sendFlags: Int32 = 0
#else
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#endif

private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    listen(descriptor, backlog)
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #elseif canImport(Musl)
        Musl.close(descriptor)
    #else
        Darwin.close(descriptor)
    #endif
}
