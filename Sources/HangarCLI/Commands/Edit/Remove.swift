import ArgumentParser
import PropertyList

/// `hangar remove KEYPATH FILE…`, as `plutil -remove` does.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove the value at a key path.",
        discussion: "Fails when there is none. Every other key stays where it was, and the file keeps its format."
    )

    @Argument(help: "What to remove: keys and array indexes separated by `.` (`\\.` is a dot in a key).")
    var keyPath: String

    @OptionGroup
    var targets: EditTargets

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try targets.run { (document) throws(PlistKeyPathFailure) in try document.apply(.remove, at: path) }
    }
}
