import ArgumentParser

@main
struct HangarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hangar",
        abstract: "Property-list files and Hangar stores."
    )
}
