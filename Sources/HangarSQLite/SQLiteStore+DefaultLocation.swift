import Foundation
import Hangar

// Where a store lives unless the application says otherwise: the platform's folder for application data.

extension SQLiteStore {
    /// The folder Hangar keeps `application`'s data in: `$XDG_DATA_HOME/application` (or
    /// `~/.local/share/application`) on Linux; Application Support/`application` on Apple platforms.
    public static func defaultDirectory(application: String) -> String {
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
                ?? NSHomeDirectory() + "/Library/Application Support"
        #else
            let environment = ProcessInfo.processInfo.environment
            let base: String
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                base = xdg
            } else {
                base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
            }
        #endif
        return base + "/" + application
    }

    /// `defaultDirectory(application:)/name`: where an application's store lives unless it says otherwise.
    public static func defaultPath(application: String, name: String = "store.sqlite") -> String {
        defaultDirectory(application: application) + "/" + name
    }
}
