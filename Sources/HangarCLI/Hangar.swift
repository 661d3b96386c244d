import ArgumentParser

@main
struct HangarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hangar",
        abstract: "Check, convert and print property-list files; manage Hangar stores.",
        discussion: """
            Reads binary (bplist00), XML, OpenStep and JSON property lists; writes binary, XML and JSON.
            Exit status: 0 on success, 1 when an input is bad or a file cannot be read or written \
            (with a one-line `FILE: reason` on standard error).
            """,
        subcommands: [Lint.self, Convert.self, Print.self, DB.self]
    )
}
