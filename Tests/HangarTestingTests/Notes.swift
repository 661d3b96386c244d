import Hangar
import HangarTestSupport
import HangarTesting
import PropertyList
import Testing

/// An attachment of a note: the class hierarchy whose tags the shapes record.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
class Attachment: PropertyListRepresentable, @unchecked Sendable {
    let name: String

    init(name: String) { self.name = name }

    required init(propertyList: PropertyList) throws(HangarError) {
        name = try DictionaryReader(propertyList).read("name")
    }

    var propertyListRepresentation: PropertyList { ["name": .string(name)] }
}

/// An image attachment (tag `Image`).
final class ImageAttachment: Attachment, @unchecked Sendable {
    let width: Int

    init(name: String, width: Int) {
        self.width = width
        super.init(name: name)
    }

    required init(propertyList: PropertyList) throws(HangarError) {
        width = try DictionaryReader(propertyList).read("width")
        try super.init(propertyList: propertyList)
    }

    override var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter(super.propertyListRepresentation)
        writer.set("width", width)
        return writer.propertyList
    }
}

/// A link attachment (tag `Link`).
final class LinkAttachment: Attachment, @unchecked Sendable {
    let url: String

    init(name: String, url: String) {
        self.url = url
        super.init(name: name)
    }

    required init(propertyList: PropertyList) throws(HangarError) {
        url = try DictionaryReader(propertyList).read("url")
        try super.init(propertyList: propertyList)
    }

    override var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter(super.propertyListRepresentation)
        writer.set("url", url)
        return writer.propertyList
    }
}

extension ClassRegistry {
    static let notes: ClassRegistry = {
        var registry = ClassRegistry()
        registry.register(Attachment.self, tag: "Attachment", as: Attachment.self)
        registry.register(ImageAttachment.self, tag: "Image", as: Attachment.self)
        registry.register(LinkAttachment.self, tag: "Link", as: Attachment.self)
        return registry
    }()

    /// The registry of a release that forgot the `Link` tag (TAG_REMOVED_WITHOUT_ALIAS).
    static let notesWithoutLink: ClassRegistry = {
        var registry = ClassRegistry()
        registry.register(Attachment.self, tag: "Attachment", as: Attachment.self)
        registry.register(ImageAttachment.self, tag: "Image", as: Attachment.self)
        return registry
    }()
}

/// One release of the notes app: its format and what its reader does. Each release a test needs is a `Spec`.
protocol NoteSpec: SendableMetatype {
    static var format: DocumentFormat { get }
    /// The key the title is read under (`title` in 1.x, `heading` from 2.0).
    static var titleKey: String { get }
    static var readsBody: Bool { get }
    static var bodyIsInteger: Bool { get }
    /// `nil`: `pinned` is not read; `true`: required; `false`: optional.
    static var pinnedRequired: Bool? { get }
    /// Writes a `count` one higher than it read: a document that does not survive its own save.
    static var unstable: Bool { get }
    /// Writes the key the kit's newer minor adds, with a value of its own.
    static var clobbersNewerKey: Bool { get }
}

extension NoteSpec {
    static var titleKey: String { "title" }
    static var readsBody: Bool { true }
    static var bodyIsInteger: Bool { false }
    static var pinnedRequired: Bool? { nil }
    static var unstable: Bool { false }
    static var clobbersNewerKey: Bool { false }
}

/// A note of release `Spec`.
struct Note<Spec: NoteSpec>: VersionedDocument, Sendable {
    static var collection: String { "notes" }
    static var format: DocumentFormat { Spec.format }

    var title: String
    var body: PropertyList?
    var pinned: Bool?
    var count: Int?
    var attachments: [Attachment]

    init(
        title: String, body: PropertyList? = nil, pinned: Bool? = nil, count: Int? = nil, attachments: [Attachment] = []
    ) {
        self.title = title
        self.body = body
        self.pinned = pinned
        self.count = count
        self.attachments = attachments
    }

    init(propertyList: PropertyList) throws(HangarError) {
        let reader = try DictionaryReader(propertyList)
        title = try reader.read(Spec.titleKey)
        if Spec.readsBody {
            body =
                try Spec.bodyIsInteger
                ? reader.readIfPresent("body", as: Int.self).map { .integer(.init($0)) }
                : reader.readIfPresent("body", as: String.self).map(PropertyList.string)
        }
        switch Spec.pinnedRequired {
        case true?: pinned = try reader.read("pinned", as: Bool.self)
        case false?: pinned = try reader.readIfPresent("pinned")
        case nil: pinned = nil
        }
        count = try reader.readIfPresent("count")
        attachments = try reader.readIfPresent("attachments") ?? []
    }

    var propertyListRepresentation: PropertyList {
        var writer = DictionaryWriter()
        writer.set(Spec.titleKey, title)
        if let body { writer.set("body", body) }
        writer.set("pinned", pinned)
        writer.set("count", Spec.unstable ? count.map { $0 &+ 1 } : count)
        if Spec.clobbersNewerKey { writer.set("hangarTestingNewerMinorKey", "mine") }
        writer.set("attachments", attachments)
        return writer.propertyList
    }

    /// The note every release's samples hold.
    static var groceries: Note {
        Note(
            title: "Groceries", body: Spec.bodyIsInteger ? 3 : "milk, eggs",
            pinned: Spec.pinnedRequired == nil ? nil : true, count: 2,
            attachments: [
                ImageAttachment(name: "list.png", width: 640), LinkAttachment(name: "shop", url: "https://example.org"),
            ])
    }
}

enum V1_0: NoteSpec { static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 0)) }
enum V1_1: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 1))
    static var pinnedRequired: Bool? { false }
}
/// 1.1 again, but requiring `pinned`: a shape change without a version.
enum V1_1Requiring: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 1))
    static var pinnedRequired: Bool? { true }
}
enum V1_2WithoutBody: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 2))
    static var pinnedRequired: Bool? { false }
    static var readsBody: Bool { false }
}
enum V1_2IntegerBody: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 2))
    static var pinnedRequired: Bool? { false }
    static var bodyIsInteger: Bool { true }
}
enum V1_2RequiringPinned: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 2))
    static var pinnedRequired: Bool? { true }
}
enum V1_2: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 2))
    static var pinnedRequired: Bool? { false }
}
enum V1_1Unstable: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 1))
    static var pinnedRequired: Bool? { false }
    static var unstable: Bool { true }
}
enum V1_1Clobbering: NoteSpec {
    static let format = DocumentFormat(current: DocumentVersion(major: 1, minor: 1))
    static var pinnedRequired: Bool? { false }
    static var clobbersNewerKey: Bool { true }
}

/// 2.0: `title` is `heading`.
enum V2_0: NoteSpec {
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1,
        migrations: [
            DocumentMigration(from: 1, "title is heading") { content in
                var content = content
                content["heading"] = content.removeValue(forKey: "title")
                return content
            }
        ])
    static var titleKey: String { "heading" }
    static var pinnedRequired: Bool? { false }
}
/// 2.0 whose step forgot the rename: every 1.x document now fails to load.
enum V2_0Broken: NoteSpec {
    static let format = DocumentFormat(
        current: DocumentVersion(major: 2, minor: 0), oldestReadableMajor: 1,
        migrations: [DocumentMigration(from: 1, "title is heading") { $0 }])
    static var titleKey: String { "heading" }
    static var pinnedRequired: Bool? { false }
}

/// Histories in scratch folders.
enum Histories {
    static func folder() throws -> String { try ScratchFolders.make("hangar-formats") }

    /// A history of release `Spec` in `folder`, with few generated documents (the rule tests are about rules).
    static func history<Spec: NoteSpec>(
        _: Spec.Type, in folder: String, registry: ClassRegistry = .notes, generated: Int = 20,
        samples: [Note<Spec>]? = nil
    ) -> FormatHistory<Note<Spec>> {
        FormatHistory(
            Note<Spec>.self, registry: registry, folder: folder, samples: samples ?? [.groceries], generated: generated)
    }

    /// A folder holding 1.0 and 1.1, frozen.
    static func frozenThroughOneOne() throws -> String {
        let folder = try folder()
        try history(V1_0.self, in: folder).verify(freezing: .current)
        try history(V1_1.self, in: folder).verify(freezing: .current)
        return folder
    }

    /// The problems `body` throws, or none.
    static func problems(_ body: () throws(FormatCheckFailure) -> Void) -> [FormatProblem] {
        do {
            try body()
            return []
        } catch {
            return error.problems
        }
    }
}
