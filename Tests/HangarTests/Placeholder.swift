import Testing

@testable import Hangar

@Test func versionIsSet() { #expect(!HangarVersion.current.isEmpty) }
