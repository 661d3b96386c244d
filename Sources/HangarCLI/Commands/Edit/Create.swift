import ArgumentParser
import PropertyList

/// `hangar create FORMAT FILE`, as `plutil -create` does.
struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an empty dictionary, replacing the file.",
        discussion: "FILE `-` writes to standard output."
    )

    @Argument(help: "The format to write: binary1, xml1 or json.")
    var format: Convert.Target

    @Argument(help: "The file to write.")
    var file: String

    func run() throws {
        let bytes = try EditedFile.encode(.dictionary([:]), as: format.format, path: file)
        try EditedFile.write(bytes, to: file, permissions: 0o644)
    }
}
