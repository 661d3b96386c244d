import ArgumentParser
import PropertyList

/// `hangar print FILE`: a readable tree, like `plutil -p`.
struct Print: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a property list as a readable tree.",
        discussion: "Dictionaries print with sorted keys; dates in UTC; data as its length and bytes."
    )

    @Argument(help: "The file to print (`-` reads standard input).")
    var file: String

    func run() throws {
        let (value, _) = try loadPropertyList(at: file)
        print(TreePrinter.render(value), terminator: "")
    }
}
