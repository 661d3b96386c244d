import NIOCore
import NIOHTTP1

/// What one connection does, request after request, on keep-alive HTTP/1.1.
enum Workload: String, Sendable {
    /// `GET /pilots/{random key}`; one operation per GET.
    case get
    /// `GET /pilots/{random key}`, then `PUT` of another pilot's body with `If-Match` of the GET's ETag: one
    /// operation per pair (a 412 counts as a conflict, not an error).
    case update
    /// `PUT /pilots/{key}` with `If-None-Match: *` of each of this connection's keys once (201, or 412 when present).
    case seed
}

/// The bodies and the key space every connection draws from (read-only, shared by the connections).
struct LoadInput: Sendable {
    /// Pilot `i` is stored under key `keyPrefix + String(i)`; the bodies are binary plists.
    var bodies: [ByteBuffer]
    var keyPrefix: String
    var host: String
}

/// One connection's counts and latencies (nanoseconds), for the operations that started after the warm-up and
/// ended before the deadline.
struct ConnectionResult: Sendable {
    var latencies: [UInt64] = []
    var conflicts = 0
    var errors: [String: Int] = [:]
    var created = 0
    var existing = 0
}

/// Drives one connection: sends a request, reads the response, records, sends the next, all on the channel's event
/// loop, so the generator's own cost per request stays small (no task hops), like `wrk`.
final class LoadConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private enum Step {
        case reading
        case writing(etag: String)
        case creating
    }

    private let workload: Workload
    private let input: LoadInput
    private let measureFrom: NIODeadline
    private let deadline: NIODeadline
    private var seedKeys: [Int]
    private let finished: EventLoopPromise<ConnectionResult>
    private var result = ConnectionResult()
    private var random: Xorshift
    private var step = Step.reading
    private var key = 0
    private var operationStart = NIODeadline.now()
    private var status = HTTPResponseStatus.ok
    private var etag: String?
    private var closing = false

    init(
        workload: Workload, input: LoadInput, measureFrom: NIODeadline, deadline: NIODeadline, seedKeys: [Int],
        seed: UInt64, finished: EventLoopPromise<ConnectionResult>
    ) {
        self.workload = workload
        self.input = input
        self.measureFrom = measureFrom
        self.deadline = deadline
        self.seedKeys = seedKeys.reversed()
        self.finished = finished
        random = Xorshift(seed: seed)
        result.latencies.reserveCapacity(workload == .seed ? 0 : 1 << 16)
    }

    func channelActive(context: ChannelHandlerContext) {
        startOperation(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !closing { result.errors["the server closed the connection", default: 0] += 1 }
        finished.succeed(result)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        result.errors["connection: \(error)", default: 0] += 1
        close(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
            etag = head.headers.first(name: "ETag")
        case .body:
            break
        case .end:
            responseEnded(context: context)
        }
    }

    private func startOperation(context: ChannelHandlerContext) {
        operationStart = .now()
        switch workload {
        case .get, .update:
            guard operationStart < deadline else { return close(context) }
            key = Int(random.next() % UInt64(input.bodies.count))
            step = .reading
            send(.GET, context: context, headers: ["Accept": "application/x-plist"])
        case .seed:
            guard let next = seedKeys.popLast() else { return close(context) }
            key = next
            step = .creating
            let body = input.bodies[key]
            send(.PUT, context: context, headers: ["If-None-Match": "*"], body: body)
        }
    }

    private func responseEnded(context: ChannelHandlerContext) {
        switch (step, status) {
        case (.reading, .ok):
            guard workload == .update else { return operationEnded(context: context) }
            guard let etag else {
                result.errors["GET without an ETag", default: 0] += 1
                return startOperation(context: context)
            }
            step = .writing(etag: etag)
            let body = input.bodies[Int(random.next() % UInt64(input.bodies.count))]
            send(.PUT, context: context, headers: ["If-Match": etag, "Accept": "application/x-plist"], body: body)
        case (.writing, .ok):
            operationEnded(context: context)
        case (.writing, .preconditionFailed):
            if operationStart >= measureFrom { result.conflicts += 1 }
            startOperation(context: context)
        case (.creating, .created):
            result.created += 1
            startOperation(context: context)
        case (.creating, .preconditionFailed):
            result.existing += 1
            startOperation(context: context)
        case (.reading, _), (.writing, _), (.creating, _):
            failed(context: context)
        }
    }

    private func operationEnded(context: ChannelHandlerContext) {
        let end = NIODeadline.now()
        if operationStart >= measureFrom && end <= deadline {
            result.latencies.append(UInt64((end - operationStart).nanoseconds))
        }
        startOperation(context: context)
    }

    private func failed(context: ChannelHandlerContext) {
        let name: String
        switch step {
        case .reading: name = "GET"
        case .writing: name = "PUT If-Match"
        case .creating: name = "PUT If-None-Match"
        }
        result.errors["\(name) answered \(status.code)", default: 0] += 1
        startOperation(context: context)
    }

    private func send(
        _ method: HTTPMethod, context: ChannelHandlerContext, headers extra: KeyValuePairs<String, String>,
        body: ByteBuffer? = nil
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: input.host)
        for (name, value) in extra { headers.add(name: name, value: value) }
        if let body {
            headers.add(name: "Content-Type", value: "application/x-plist")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
        }
        let head = HTTPRequestHead(
            version: .http1_1, method: method, uri: "/pilots/\(input.keyPrefix)\(key)", headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func close(_ context: ChannelHandlerContext) {
        closing = true
        context.close(promise: nil)
    }
}

/// A small, fast, seeded generator (xorshift64*): the keys each connection asks for, reproducible per seed.
struct Xorshift {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
