import ArgumentParser

@main
struct HangarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hangar",
        abstract: "Check, convert, print and edit property-list files; manage Hangar stores; see one in a browser.",
        discussion: """
            Reads binary (bplist00), XML, OpenStep and JSON property lists; writes binary, XML and JSON, \
            keeping each dictionary's keys in the order the file had them.
            Exit status: 0 on success, 1 when an input is bad or a file cannot be read or written \
            (with a one-line `FILE: reason` on standard error), 64 for a usage error (one line \
            `hangar: reason`).
            """,
        subcommands: [
            Lint.self, Convert.self, Print.self, Extract.self, Insert.self, Replace.self, Remove.self,
            TypeCommand.self, Create.self, DB.self, Formats.self, Studio.self,
        ]
    )

    /// Parses the command line and runs the command; whatever it throws ends the process through
    /// ``exit(reporting:)``, the one place an error becomes a line on standard error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error)
        }
    }

    /// Ends the process for `error`: a ``FileFailure`` as its one line and status 1; a usage error as one
    /// `hangar: reason` line and status 64; help and version requests as the parser prints them; an
    /// `ExitCode` (its lines already printed) silently with its status.
    static func exit(reporting error: any Error) -> Never {
        if error is ExitCode || exitCode(for: error).rawValue == 0 {
            exit(withError: error)
        }
        if let failure = error as? FileFailure {
            printError(failure.description)
            exit(withError: ExitCode.failure)
        }
        printError("hangar: " + message(for: error))
        exit(withError: exitCode(for: error))
    }
}
