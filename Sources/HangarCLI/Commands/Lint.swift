import ArgumentParser

/// `hangar lint FILE…`: checks that each file is a property list, as `plutil -lint` does.
struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that files are valid property lists.",
        discussion: "Prints `FILE: OK` for each good file; for a bad one, `FILE: reason` on standard error. "
            + "Exits 1 if any file is bad."
    )

    @Argument(help: "The files to check (`-` reads standard input).")
    var files: [String]

    mutating func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file.") }
    }

    func run() throws {
        var failed = false
        for file in files {
            do {
                _ = try loadPropertyList(at: file)
                print("\(file): OK")
            } catch {
                printError(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
