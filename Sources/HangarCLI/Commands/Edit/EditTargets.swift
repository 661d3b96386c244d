import ArgumentParser
import PropertyList

/// The `FILE… [-o OUT]` every edit verb takes: the files to edit, each in place, or one file written to `-o`.
struct EditTargets: ParsableArguments {
    @Argument(help: "The files to edit, each in place (atomically) unless -o is given.")
    var files: [String] = []

    @Option(name: .customShort("o"), help: "Write the edited file there instead (one FILE; `-` for standard output).")
    var output: String?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file.") }
        if output != nil && files.count > 1 { throw ValidationError("-o takes one FILE, not \(files.count).") }
        if files.contains("-") && output == nil {
            throw ValidationError("Reading standard input needs -o (a file, or - for standard output).")
        }
    }

    /// Edits each file with `edit`; a file that fails prints its `FILE: reason` line and the others go on. Exits
    /// with status 1 when any failed.
    func run(_ edit: (inout PropertyList) throws(PlistKeyPathFailure) -> Void) throws {
        var failed = false
        for file in files {
            do {
                try EditedFile.edit(file, output: output, edit)
            } catch {
                printError(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
