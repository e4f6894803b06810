import Foundation
@testable import PortalCoreData
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The Core Data stores shipped in Tests/Fixtures/coredata (read-only: tests open copies).
enum CoreDataFixture: String, CaseIterable {
    case monterey = "NoteStore-macOS-12-Monterey.sqlite"
    case ventura = "NoteStore-macOS-13-Ventura.sqlite"
    case sonoma = "NoteStore-macOS-14-Sonoma.sqlite"
    case sequoia = "NoteStore-macOS-15-Seqoia.sqlite"
    case photos = "Photos-macOS-10.15.sqlite"

    /// The Notes stores, oldest macOS first.
    static let notes: [CoreDataFixture] = [.monterey, .ventura, .sonoma, .sequoia]

    /// The column of ICNote's to-one `account` (the drift between versions: `ZACCOUNT4` on
    /// Monterey, `ZACCOUNT7` once more sub-entities gained an `account`), as read by hand from
    /// which `ZACCOUNTn` holds the notes' account keys.
    var noteAccountColumn: String { self == .monterey ? "ZACCOUNT4" : "ZACCOUNT7" }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/coredata")
    static let xmlModelPath = folder.appendingPathComponent("momcTests 2.xcdatamodel-contents.xml").path

    /// A copy of the store in `folder`.
    func copy(into folder: TemporaryFolder) throws -> String {
        let path = folder.path(rawValue)
        try FileManager.default.copyItem(atPath: Self.folder.appendingPathComponent(rawValue).path, toPath: path)
        return path
    }

    /// A read-only connection to a copy of the store.
    func connection(in folder: TemporaryFolder) throws -> Connection {
        try Connection(path: copy(into: folder), readOnly: true, create: false)
    }
}

@Suite struct CoreDataModelReaderTests {
    @Test(arguments: CoreDataFixture.notes)
    func notes_entityNumbersAndHierarchy(fixture: CoreDataFixture) throws {
        let folder = try TemporaryFolder()
        let info = try CoreDataStoreInfo(fixture.connection(in: folder))
        #expect(info.number(of: "ICNote") == 11)
        #expect(info.entityNumbers.first { $0.name == "ICFolder" }?.parent == 12)
        let model = try #require(info.cachedModel)
        // Z_PRIMARYKEY also lists the persistent-history entities, which are not in the model.
        #expect(Set(model.entities.map(\.name)) == Set(info.entityNumbers.filter { $0.number < 16000 }.map(\.name)))
        #expect(model.entity(named: "ICFolder")?.parent == "ICNoteContainer")
        #expect(model.entity(named: "ICNoteContainer")?.isAbstract == true)
        #expect(model.root(of: "ICFolder")?.name == "ICCloudSyncingObject")
        #expect(model.hierarchy(from: "ICNoteContainer").map(\.name).sorted() == ["ICAccount", "ICFolder", "ICNoteContainer"])
        #expect(model.ignored.isEmpty)
    }

    @Test(arguments: CoreDataFixture.notes)
    func notes_ownAndInheritedProperties(fixture: CoreDataFixture) throws {
        let folder = try TemporaryFolder()
        let model = try #require(try CoreDataStoreInfo(fixture.connection(in: folder)).cachedModel)
        let note = try #require(model.entity(named: "ICNote"))
        // Declared on ICCloudSyncingObject, inherited by ICNote: listed once, on the parent.
        #expect(!note.attributes.contains { $0.name == "markedForDeletion" })
        #expect(model.allAttributes(of: "ICNote").contains { $0.name == "markedForDeletion" && $0.type == .boolean })
        #expect(note.attributes.first { $0.name == "creationDate" }?.type == .date)
        #expect(note.attributes.first { $0.name == "title" }?.type == .string)
        let folderRelationship = try #require(note.relationships.first { $0.name == "folder" })
        #expect(folderRelationship.destination == "ICFolder")
        #expect(folderRelationship.inverse == "notes")
        #expect(!folderRelationship.isToMany)
        let notes = try #require(model.entity(named: "ICFolder")?.relationships.first { $0.name == "notes" })
        #expect(notes.isToMany && notes.inverse == "folder" && notes.destination == "ICNote")
    }

    @Test func photos_manyToManyOrderedAndSubEntityRelationships() throws {
        let folder = try TemporaryFolder()
        let model = try #require(try CoreDataStoreInfo(CoreDataFixture.photos.connection(in: folder)).cachedModel)
        #expect(model.entities.count == 54)
        let assets = try #require(model.entity(named: "Album")?.relationships.first { $0.name == "assets" })
        #expect(assets.destination == "GenericAsset" && assets.inverse == "albums" && assets.isToMany && assets.isOrdered)
        let albums = try #require(model.entity(named: "GenericAsset")?.relationships.first { $0.name == "albums" })
        #expect(albums.isToMany && !albums.isOrdered && albums.destination == "Album")
        // The same name on a sibling entity is another relationship (one-to-many).
        let importAssets = try #require(model.entity(named: "ImportSession")?.relationships.first { $0.name == "assets" })
        #expect(importAssets.inverse == "importSession")
        let merge = try #require(model.entity(named: "Person")?.relationships.first { $0.name == "mergeCandidates" })
        #expect(merge.destination == "Person" && merge.inverse == "mergeCandidates")
        #expect(model.entity(named: "GenericAsset")?.attributes.first { $0.name == "uuid" }?.type == .string)
        #expect(model.entity(named: "GenericAsset")?.attributes.first { $0.name == "dateCreated" }?.type == .date)
    }

    @Test func xmlModel_entitiesAttributesRelationships() throws {
        let model = try ModelFile.read(CoreDataFixture.xmlModelPath)
        #expect(model.entities.map(\.name) == ["AbstractEntity", "Entity", "OtherEntity", "UnrelatedEntity"])
        let entity = try #require(model.entity(named: "Entity"))
        #expect(entity.parent == "AbstractEntity")
        #expect(model.entity(named: "AbstractEntity")?.isAbstract == true)
        #expect(entity.attributes.map(\.type) == [.binary, .boolean, .date, .decimal, .double, .float, .integer16,
                                                  .integer32, .integer64, .string, .transformable])
        #expect(entity.attributes.first?.isTransient == true)
        #expect(entity.relationships == [CoreDataRelationship(name: "otherEntities", destination: "OtherEntity",
                                                              inverse: "mainEntity", isToMany: true)])
        #expect(model.entity(named: "OtherEntity")?.relationships.first?.isToMany == false)
        // The fetched property is not stored: skipped without a note.
        #expect(model.ignored.isEmpty)
    }

    @Test func xcdatamodeld_takesTheCurrentVersion() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("App.xcdatamodeld")
        let xml = try String(contentsOfFile: CoreDataFixture.xmlModelPath, encoding: .utf8)
        for (version, text) in [("App.xcdatamodel", xml.replacingOccurrences(of: "UnrelatedEntity", with: "Old")),
                                ("App 2.xcdatamodel", xml), ("App 3.xcdatamodel", "<model></model>")] {
            let dir = bundle.appendingPathComponent(version)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try text.write(to: dir.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>App 2.xcdatamodel</string></dict></plist>
            """
        try current.write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        #expect(try ModelFile.read(bundle.path).entity(named: "UnrelatedEntity") != nil)
        #expect(try ModelFile.read(bundle.appendingPathComponent("App.xcdatamodel").path).entity(named: "Old") != nil)
        // Without .xccurrentversion the last version by name is taken: this one has no entities.
        try FileManager.default.removeItem(at: bundle.appendingPathComponent(".xccurrentversion"))
        #expect(portalError { try ModelFile.read(bundle.path) }?.kind == .coreDataModel)
    }

    /// A compiled `.mom` is the keyed archive `Z_MODELCACHE` holds (inflated): written to a
    /// file, it reads as the same model, alone and as the current version of a `.momd`.
    @Test func compiledModel_momAndMomd() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.photos.connection(in: folder)
        guard case .blob(let compressed)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            Issue.record("no model cache")
            return
        }
        let cached = try #require(try CoreDataStoreInfo(connection).cachedModel)
        let mom = folder.url.appendingPathComponent("Photos.mom")
        try Data(try Inflate.raw(compressed)).write(to: mom)
        #expect(try ModelFile.read(mom.path) == cached)
        let momd = folder.url.appendingPathComponent("Photos.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: mom, to: momd.appendingPathComponent("Photos 2.mom"))
        try Data("not a model".utf8).write(to: momd.appendingPathComponent("Photos.mom"))
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Photos 2"], format: .xml, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(try ModelFile.read(momd.path).entities.count == 54)
        // A damaged compiled model is an error, not a crash.
        try Data(try Inflate.raw(compressed).prefix(4000)).write(to: mom)
        #expect(portalError { try ModelFile.read(mom.path) }?.kind == .coreDataModel)
    }

    /// An `.xcdatamodel` last saved by Xcode 3 or 4.0 keeps a binary `elements` instead of
    /// `contents`: read when it archives the model itself, else refused as that format, by name.
    @Test func xcode3Elements_readOrRefusedByName() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.photos.connection(in: folder)
        guard case .blob(let compressed)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            Issue.record("no model cache")
            return
        }
        let bundle = folder.url.appendingPathComponent("Photos.xcdatamodeld")
        let version = bundle.appendingPathComponent("Photos.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let elements = version.appendingPathComponent("elements")
        try Data(try Inflate.raw(compressed)).write(to: elements)
        #expect(try ModelFile.read(bundle.path).entities.count == 54)
        #expect(try ModelFile.read(version.path).entities.count == 54)
        // An archive of Xcode's own editing objects, not of a model.
        let other = try PropertyListSerialization.data(
            fromPropertyList: ["$archiver": "NSKeyedArchiver", "$objects": ["$null", ["name": "XDDevModel"]],
                               "$top": ["root": "x"]] as [String: Any], format: .binary, options: 0)
        try other.write(to: elements)
        let error = portalError { try ModelFile.read(bundle.path) }
        #expect(error?.kind == .coreDataModel)
        #expect(error?.message.contains("elements is the binary model format of Xcode 3 and 4.0, which this version does not read")
                == true, "\(String(describing: error))")
    }

    @Test func cachedModel_unknownPropertyKindsAreNoted() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        guard case .blob(let compressed)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            Issue.record("no model cache")
            return
        }
        // A newer framework's kind of property: the class name replaced in place (same length,
        // so the binary property list stays whole).
        var bytes = try Inflate.raw(compressed)
        let old = Array("NSRelationshipDescription".utf8), new = Array("NSFuturePropertyDescripti".utf8)
        var i = 0
        while i + old.count <= bytes.count {
            if bytes[i..<(i + old.count)].elementsEqual(old) { bytes.replaceSubrange(i..<(i + old.count), with: new) }
            i += 1
        }
        let model = try ModelArchiveReader.model(archive: Data(bytes), source: "test")
        #expect(model.entities.allSatisfy { $0.relationships.isEmpty })
        #expect(model.ignored.contains("ICNote.folder (NSFuturePropertyDescripti)"))
        #expect(model.entity(named: "ICNote")?.attributes.isEmpty == false)
    }

    /// Damaged archives (bytes changed at random, seeded) throw or read; they never crash.
    @Test func cachedModel_damagedBytesNeverCrash() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        guard case .blob(let compressed)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            Issue.record("no model cache")
            return
        }
        let whole = try Inflate.raw(compressed)
        var generator = SeededRandom(seed: 17)
        var failures = 0
        for _ in 0..<300 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 8..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let model = try? ModelArchiveReader.model(archive: Data(bytes), source: "damaged") {
                // Whatever was read must still walk: hierarchies and roots end.
                for entity in model.entities { _ = model.hierarchy(from: entity.name); _ = model.root(of: entity.name) }
            } else {
                failures += 1
            }
        }
        #expect(failures > 0)
        var damaged = compressed
        damaged[damaged.count / 2] ^= 0xFF
        if let inflated = try? Inflate.raw(damaged) { _ = try? ModelArchiveReader.model(archive: Data(inflated), source: "x") }
    }

    @Test func xmlModel_parentCycleEnds() throws {
        let xml = #"<model><entity name="A" parentEntity="B"/><entity name="B" parentEntity="A"/></model>"#
        let model = try XMLModelReader.model(xml: xml, source: "cycle")
        #expect(model.hierarchy(from: "A").map(\.name) == ["A", "B"])
        let numbers = [CoreDataStoreInfo.EntityNumber(number: 1, name: "A", parent: 2, max: 0),
                       CoreDataStoreInfo.EntityNumber(number: 2, name: "B", parent: 1, max: 0)]
        #expect(model.allAttributes(of: "A").isEmpty)
        // Neither is a root: the mapping finds no table for them and says which entity.
        let error = portalError { try CoreDataMapping.build(model: model, numbers: numbers, tables: [:]) }
        #expect(error?.kind == .coreDataModel && error?.message.contains("is also its descendant") == true)
        let orphan = try XMLModelReader.model(xml: #"<model><entity name="A" parentEntity="Gone"/></model>"#, source: "x")
        #expect(portalError { try CoreDataMapping.build(model: orphan, numbers: numbers, tables: [:]) }?.message
                    .contains("Gone is not in the model") == true)
    }

    @Test func xmlModel_unknownElementsAndTypesAreNoted() throws {
        let xml = """
            <?xml version="1.0"?><!-- a comment with <entity> inside -->
            <model><entity name="A &amp; B"><attribute name="x" attributeType="Hologram"/>
            <compositeAttribute name="address"/><attribute name="y" attributeType="URI"/></entity></model>
            """
        let model = try XMLModelReader.model(xml: xml, source: "test")
        #expect(model.entities.map(\.name) == ["A & B"])
        #expect(model.entities[0].attributes.map(\.type) == [.unknown(-1), .uri])
        #expect(model.ignored == ["A & B.x (type Hologram)", "A & B.address (<compositeAttribute>)"])
    }

    @Test(arguments: ["", "<model", "<model a=1></model>", "plain text", "<model><entity name=\"x></model>", "<model a=  >",
                      "<model a", "<x><entity><attribute name=\"a\"/></entity></x>", "<model><y><entity/></y></model>"])
    func xmlModel_badInputThrows(text: String) {
        #expect(portalError { try XMLModelReader.model(xml: text, source: "bad") }?.kind == .coreDataModel)
    }

    @Test func inflate_rejectsDamagedAndTruncatedData() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        guard case .blob(let compressed)? = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
            Issue.record("no model cache")
            return
        }
        let whole = try Inflate.raw(compressed)
        #expect(whole.starts(with: Array("bplist00".utf8)))
        #expect(portalError { try Inflate.raw(Array(compressed.prefix(compressed.count / 2))) }?.kind == .coreDataModel)
        #expect(portalError { try Inflate.raw([0xFF, 0xFF, 0xFF, 0xFF]) }?.kind == .coreDataModel)
        #expect(portalError { try Inflate.raw(compressed, limit: 1000) }?.kind == .coreDataModel)
        // A valid plist that is not a model archive.
        #expect(portalError { try ModelArchiveReader.model(archive: Data(Array(whole.prefix(8))), source: "x") }?.kind == .coreDataModel)
    }
}

