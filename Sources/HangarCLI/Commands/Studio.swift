import ArgumentParser
import Foundation
import Hangar
import HangarStudio
import HangarTesting
import Hummingbird
import Logging

/// `hangar studio (--db PATH | --url URL) [--key-file FILE] [--port N] [--write] [--formats DIR...]`
struct Studio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "See a store in a browser: collections, format versions, documents and their history, changes.",
        discussion: """
            Serves Hangar Studio on 127.0.0.1 (loopback only) and prints exactly one line on standard output, \
            `studio: http://127.0.0.1:PORT/?token=TOKEN`, once it accepts connections; logs go to standard error. \
            The token is new each start (256 random bits): a request without it, or with another, is refused \
            (401 or 403) and shown no data. Read-only unless --write; with --write, restore, delete and edit go \
            through the store's own rules and must come from the studio's own pages (same origin). SIGINT or \
            SIGTERM stop it (status 0), ending open event streams.
            """)

    @OptionGroup var store: StoreOption
    @Option(help: "The port to listen on; 0 (the default) picks a free one.") var port = 0
    @Flag(help: "Offer restore, delete and edit (otherwise the studio only reads).") var write = false
    @Option(
        name: .customLong("formats"), parsing: .upToNextOption, help: "Migration Kit folders whose histories to show.")
    var formats: [String] = []

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
    }

    func run() async throws {
        // A folder that is not a readable history is a one-line error before anything is served.
        do {
            _ = try FormatsTool.Census(folders: formats)
        } catch {
            throw FileFailure(path: error.path, reason: error.reason)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        try await withStore(store, readOnly: !write) { opened in
            var options = StudioOptions(token: StudioToken.make(), allowsWrites: write)
            options.formats = formats
            // The Health page's check is `hangar db check`'s.
            options.check = { try await DBCheck.problems(in: opened) }
            try await serve(opened.store, options: options)
        }
    }

    /// Runs the studio over `store` until SIGINT or SIGTERM; prints the one line once the port is bound.
    func serve<Store: DocumentStore>(_ store: Store, options: StudioOptions) async throws {
        // HEAD answers every page and GET of the API.
        let router = Router(options: .autoGenerateHeadEndpoints)
        HangarStudio(store: store, options: options).addRoutes(to: router)
        var logger = Logger(label: "hangar-studio")
        logger.logLevel = .warning
        let token = options.token ?? ""
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("studio: http://127.0.0.1:\(bound)/?token=\(token)\n".utf8))
            },
            logger: logger)
        do {
            try await application.runService()
        } catch {
            // The server's own failure (the port taken, say), not the store's: named by the address.
            throw FileFailure(path: "127.0.0.1:\(port)", reason: "The studio cannot serve: \(error)")
        }
    }
}
