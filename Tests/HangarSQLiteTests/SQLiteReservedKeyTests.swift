import Foundation
import HangarTestSupport
import PropertyList
import Testing

@testable import Hangar

/// A model that writes one extra top-level key of its choosing.
struct Tagged: VersionedDocument, Equatable, Sendable {
    static let collection = "tagged"
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0))
    var extraKey: String
    var value: String

    init(extraKey: String, value: String) {
        self.extraKey = extraKey
        self.value = value
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        extraKey = try reader.read("extraKey")
        value = try reader.read("value")
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set("extraKey", extraKey)
        writer.set("value", value)
        writer.set(extraKey, value)
        return writer.propertyList
    }
}

@Suite struct SQLiteReservedKeyTests {
    @Test(arguments: ["majorVersion", "minorVersion", "class", "hangarKey"])
    func aModelUsingAReservedKeyIsRefusedAtSave(reserved: String) throws {
        let store = try Backend.file.makeStore()
        #expect {
            try store.write { try $0.save(Tagged(extraKey: reserved, value: "2"), key: "k") }
        } throws: { error in
            guard let error = error as? HangarError, error.code == .reservedKey else { return false }
            return error.field == reserved && error.key == "k"
        }
        #expect(try store.read { try $0.count(in: "tagged") } == 0)
    }

    @Test func anOrdinaryKeySavesAndLoadsBack() throws {
        let store = try Backend.file.makeStore()
        let model = Tagged(extraKey: "colour", value: "red")
        try store.write { try $0.save(model, key: "k") }
        #expect(try store.read { try $0.load(Tagged.self, key: "k")?.value } == model)
    }
}
