import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback HTTP/1.1 proxy between a client and a server that injects faults on demand: each request is read
/// whole, sent to the server on a connection of its own, and the answer read whole; then, as told, the answer is
/// passed on, dropped after the server committed (the client's connection closed), the request dropped before
/// it reaches the server, or the request sent twice (the second answer passed on). One connection per request.
final class FaultProxy: @unchecked Sendable {
    enum Fault: Sendable {
        /// No fault: this request goes through (to let some pass before a fault).
        case pass
        case dropRequest
        case dropAnswer
        case duplicate
    }

    let port: UInt16
    private let serverPort: UInt16
    private let listener: Int32
    private let faults = Mutex<[Fault]>([])
    private let forwarded = Mutex(0)

    /// A proxy on a free loopback port to the server at `127.0.0.1:serverPort`.
    init(serverPort: UInt16) throws {
        self.serverPort = serverPort
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            _ = closeDescriptor(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The next request meets `fault`.
    func inject(_ fault: Fault) { faults.withLock { $0.append(fault) } }

    /// How many requests reached the server.
    var requestsForwarded: Int { forwarded.withLock { $0 } }

    /// Stops accepting connections.
    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = closeDescriptor(listener)
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { _ = closeDescriptor(client) }
        guard let request = Self.readMessage(client, isRequest: true) else { return }
        let fault = faults.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if fault == .dropRequest { return }
        var answer = exchange(request)
        if fault == .duplicate { answer = exchange(request) }
        if fault == .dropAnswer { return }
        if let answer { Self.writeAll(client, answer) }
    }

    /// Sends `request` to the server on a new connection and reads its whole answer.
    private func exchange(_ request: [UInt8]) -> [UInt8]? {
        let server = socket(AF_INET, streamSocket, 0)
        guard server >= 0 else { return nil }
        defer { _ = closeDescriptor(server) }
        var address = Self.loopback(port: serverPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        Self.writeAll(server, request)
        forwarded.withLock { $0 += 1 }
        return Self.readMessage(server, isRequest: false)
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

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            offset += count
        }
    }
}

#if canImport(Darwin)
    private let streamSocket = SOCK_STREAM
#else
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#endif

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #elseif canImport(Musl)
        Musl.close(descriptor)
    #else
        Darwin.close(descriptor)
    #endif
}
