import Foundation
import Hangar
import PropertyList
import Testing

@Suite struct DictionaryWriterTests {
    enum Key: String {
        case name, nickname, hours
    }

    @Test func nilValuesAreDropped() {
        var writer = DictionaryWriter()
        writer.set(Key.name, "Ada")
        writer.set(Key.nickname, nil as String?)
        writer.set("hours", UInt64.max)
        #expect(writer.propertyList == ["name": "Ada", "hours": .integer(.init(UInt64.max))])
    }

    @Test func settingNilRemovesAnExistingKey() {
        var writer = DictionaryWriter(["name": "Ada", "nickname": "A"])
        writer.set(Key.nickname, nil as String?)
        #expect(writer.entries.keys.sorted() == ["name"])
        writer[Key.name] = nil
        #expect(writer.propertyList == [:])
    }

    @Test func startsFromNothingForANonDictionary() {
        #expect(DictionaryWriter("not a dictionary").entries.isEmpty)
    }

    @Test func writesEveryScalarKind() {
        var writer = DictionaryWriter()
        writer.set("date", Date(timeIntervalSinceReferenceDate: 10))
        writer.set("data", Data([1, 2]))
        writer.setBytes("bytes", [3])
        writer.setBytes("noBytes", nil)
        writer.set("int8", Int8(-3))
        writer.set("real", 2.5)
        writer.set("float", Float(0.5))
        writer.set("flag", false)
        writer.set("list", [1, 2])
        writer.set("map", ["k": "v"])
        #expect(
            writer.propertyList == [
                "date": .date(10), "data": .data([1, 2]), "bytes": .data([3]), "int8": -3, "real": 2.5, "float": 0.5,
                "flag": false, "list": [1, 2], "map": ["k": "v"],
            ])
    }
}
