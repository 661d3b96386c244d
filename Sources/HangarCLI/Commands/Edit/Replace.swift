import ArgumentParser
import PropertyList

/// `hangar replace KEYPATH -TYPE VALUE FILE…`, as `plutil -replace` does.
struct Replace: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the value at a key path, or add it.",
        discussion: """
            The value takes the old one's place; a missing key is added at the end of its dictionary. At an \
            array index the element there is overwritten. Every other key stays where it was, and the file \
            keeps its format.
            """
    )

    @Argument(help: "What to replace: keys and array indexes separated by `.` (`\\.` is a dot in a key).")
    var keyPath: String

    @OptionGroup(title: "Value")
    var value: ValueArgument

    @OptionGroup
    var targets: EditTargets

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try targets.run { (document) throws(PlistKeyPathFailure) in
            try document.apply(.replace(try value.value()), at: path)
        }
    }
}
