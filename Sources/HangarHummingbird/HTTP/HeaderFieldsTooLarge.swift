import HTTPTypes
public import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

extension HTTPServerBuilder {
    /// An HTTP/1.1 server (Hummingbird's `http1(configuration:)`) that answers a request whose header block is
    /// larger than the decoder's limits (80 KiB, 1,000 fields by default) with `431 Request Header Fields Too Large`
    /// (RFC 6585 §5), not the generic 400 of a malformed request, and closes the connection.
    public static func hangarHTTP1(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        var configuration = configuration
        let others = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { [HeaderFieldsTooLargeHandler()] + others() }
        return .http1(configuration: configuration)
    }
}

/// Sits after the HTTP/1.1 decoder: a header overflow it reports is answered 431 here, and the connection closed;
/// every other part and error goes on as it came.
final class HeaderFieldsTooLargeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        let head = HTTPResponse(
            status: .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
            headerFields: [.connection: "close", .contentLength: "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
