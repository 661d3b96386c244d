// hangar-load: the `server` section's load generator (Benchmarks/README.md, "The server rows"). Opens N keep-alive
// HTTP/1.1 connections, spread round-robin over one or more servers, on one event loop thread, and runs one workload
// for a warm-up and then a fixed duration; prints one JSON line: operations per second, p50/p99 latency, conflicts,
// errors.
import Foundation
import LoadReport
import NIOCore
import NIOHTTP1
import NIOPosix

struct LoadOptions {
    var servers: [(host: String, port: Int)] = []
    var bodiesPath = ""
    var keyPrefix = "p"
    var workload = Workload.get
    var connections = 16
    var warmUp = 2.0
    var duration = 10.0
    var seed: UInt64 = 1

    static let usage = """
        usage: hangar-load --url http://HOST:PORT [--url ...] --bodies FILE --workload get|update|seed
                           [--connections N] [--warm-up SECONDS] [--duration SECONDS] [--keys PREFIX] [--seed N]

          --bodies FILE   the pilots' binary plist bodies, each as a 4-byte big-endian length and its bytes;
                          pilot i is /pilots/PREFIX<i> (PREFIX defaults to p)
          --workload      get: GET random pilots; update: GET a random pilot, then PUT another pilot's body with
                          If-Match (one operation; a 412 is a conflict); seed: PUT every pilot with If-None-Match: *
        """

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw LoadError("\(flag) needs a value") }
            return next
        }
        func number(_ flag: String) throws -> Double {
            guard let number = Double(try value(flag)), number >= 0 else { throw LoadError("\(flag) needs a number") }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--url": servers.append(try Self.server(from: try value(argument)))
            case "--bodies": bodiesPath = try value(argument)
            case "--keys": keyPrefix = try value(argument)
            case "--workload":
                let name = try value(argument)
                guard let workload = Workload(rawValue: name) else { throw LoadError("unknown workload \(name)") }
                self.workload = workload
            case "--connections": connections = max(1, Int(try number(argument)))
            case "--warm-up": warmUp = try number(argument)
            case "--duration": duration = try number(argument)
            case "--seed": seed = UInt64(try number(argument))
            default: throw LoadError("unknown argument \(argument)")
            }
        }
        guard !servers.isEmpty, !bodiesPath.isEmpty else { throw LoadError("--url and --bodies are required") }
    }

    static func server(from url: String) throws -> (host: String, port: Int) {
        guard url.hasPrefix("http://") else { throw LoadError("only http:// URLs: \(url)") }
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...])
        else { throw LoadError("no port in \(url)") }
        return (String(authority[..<colon]), port)
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads the bodies file: each body as a 4-byte big-endian length, then its bytes.
func readBodies(_ path: String) throws -> [ByteBuffer] {
    guard let data = FileManager.default.contents(atPath: path) else { throw LoadError("cannot read \(path)") }
    let bytes = [UInt8](data)
    var bodies: [ByteBuffer] = []
    var offset = 0
    while offset + 4 <= bytes.count {
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        offset += 4
        guard offset + length <= bytes.count else { throw LoadError("\(path): truncated body \(bodies.count)") }
        bodies.append(ByteBuffer(bytes: bytes[offset..<offset + length]))
        offset += length
    }
    guard !bodies.isEmpty, offset == bytes.count else { throw LoadError("\(path): no bodies, or trailing bytes") }
    return bodies
}

func percentile(_ sorted: [UInt64], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
    return Double(sorted[max(0, index)]) / 1_000
}

func runLoad(_ options: LoadOptions) throws -> LoadReport {
    let bodies = try readBodies(options.bodiesPath)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let start = NIODeadline.now()
    let measureFrom = start + .nanoseconds(Int64(options.warmUp * 1e9))
    let deadline = measureFrom + .nanoseconds(Int64(options.duration * 1e9))
    var results: [EventLoopFuture<ConnectionResult>] = []
    for index in 0..<options.connections {
        let server = options.servers[index % options.servers.count]
        let input = LoadInput(bodies: bodies, keyPrefix: options.keyPrefix, host: "\(server.host):\(server.port)")
        let seedKeys = Array(stride(from: index, to: bodies.count, by: options.connections))
        let loop = group.next()
        let finished = loop.makePromise(of: ConnectionResult.self)
        let workload = options.workload
        let seed = options.seed &* 1_000_003 &+ UInt64(index)
        let bootstrap = ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        LoadConnectionHandler(
                            workload: workload, input: input, measureFrom: measureFrom, deadline: deadline,
                            seedKeys: seedKeys, seed: seed, finished: finished))
                }
            }
        _ = try bootstrap.connect(host: server.host, port: server.port).wait()
        results.append(finished.futureResult)
    }
    let all = try EventLoopFuture.whenAllSucceed(results, on: group.next()).wait()
    var latencies: [UInt64] = []
    var report = LoadReport(
        workload: options.workload.rawValue, connections: options.connections, servers: options.servers.count,
        seconds: options.duration)
    for result in all {
        latencies += result.latencies
        report.conflicts += result.conflicts
        report.created += result.created
        report.existing += result.existing
        report.errors.merge(result.errors, uniquingKeysWith: +)
    }
    latencies.sort()
    report.operations = latencies.count
    if options.workload == .seed {
        report.seconds = Double((NIODeadline.now() - start).nanoseconds) / 1e9
        report.operations = report.created + report.existing
    }
    report.perSecond = Double(report.operations) / max(report.seconds, 1e-9)
    report.p50Micros = percentile(latencies, 0.50)
    report.p99Micros = percentile(latencies, 0.99)
    return report
}

do {
    let options = try LoadOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    let report = try runLoad(options)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
} catch let error as LoadError {
    FileHandle.standardError.write(Data("hangar-load: \(error)\n\(LoadOptions.usage)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("hangar-load: \(error)\n".utf8))
    exit(1)
}
