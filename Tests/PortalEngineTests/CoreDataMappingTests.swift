import Foundation
@testable import PortalCoreData
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The model matched to the real tables: each answer is read off the store's own columns.
@Suite struct CoreDataMappingTests {
    func catalog(_ fixture: CoreDataFixture) throws -> CoreDataCatalog {
        let folder = try TemporaryFolder()
        return try CoreDataCatalog(try fixture.connection(in: folder))
    }

    @Test(arguments: CoreDataFixture.notes)
    func notes_collidingColumnsFollowEntityNumbers(fixture: CoreDataFixture) throws {
        let mapping = try catalog(fixture).mapping
        let note = try #require(mapping.entity(named: "ICNote"))
        #expect(note.table == "ZICCLOUDSYNCINGOBJECT" && note.numbers == [11] && !note.coversTable)
        #expect(note.attributes.first { $0.name == "title" }?.column == "ZTITLE1")
        #expect(note.attributes.first { $0.name == "creationDate" }?.column == "ZCREATIONDATE3")
        #expect(mapping.entity(named: "ICFolder")?.attributes.first { $0.name == "title" }?.column == "ZTITLE2")
        // Inherited from ICCloudSyncingObject.
        #expect(note.attributes.first { $0.name == "identifier" }?.column == "ZIDENTIFIER")
        #expect(note.relationships.first { $0.name == "folder" }?.storage == .foreignKey(column: "ZFOLDER", entityColumn: nil))
        let container = try #require(mapping.entity(named: "ICNoteContainer"))
        #expect(container.numbers.sorted() == [12, 13, 14])
        #expect(mapping.entity(named: "ICCloudSyncingObject")?.coversTable == true)
        #expect(mapping.entity(named: "ICCloudState")?.relationships.first?.storage
                    == .foreignKey(column: "ZCLOUDSYNCINGOBJECT", entityColumn: "Z2_CLOUDSYNCINGOBJECT"))
        #expect(mapping.notes.isEmpty)
    }

    @Test(arguments: CoreDataFixture.notes)
    func notes_accountColumnsDriftBetweenVersions(fixture: CoreDataFixture) throws {
        let mapping = try catalog(fixture).mapping
        let account = mapping.entity(named: "ICNote")?.relationships.first { $0.name == "account" }
        #expect(account?.storage == .foreignKey(column: fixture.noteAccountColumn, entityColumn: nil))
        let notes = mapping.entity(named: "ICAccount")?.relationships.first { $0.name == "notes" }
        #expect(notes?.storage == .inverseForeignKey(column: fixture.noteAccountColumn, orderColumn: nil))
    }

    @Test func photos_joinTablesOrderingAndReflexive() throws {
        let mapping = try catalog(.photos).mapping
        #expect(mapping.notes.isEmpty)
        let album = try #require(mapping.entity(named: "Album"))
        #expect(album.table == "ZGENERICALBUM" && album.numbers.sorted() == [26, 27, 28, 29, 30])
        #expect(album.relationships.first { $0.name == "assets" }?.storage
                    == .joinTable(table: "Z_26ASSETS", sourceColumn: "Z_26ALBUMS", destinationColumn: "Z_34ASSETS",
                                  orderColumn: "Z_FOK_34ASSETS"))
        let asset = try #require(mapping.entity(named: "GenericAsset"))
        #expect(asset.relationships.first { $0.name == "albums" }?.storage
                    == .joinTable(table: "Z_26ASSETS", sourceColumn: "Z_34ASSETS", destinationColumn: "Z_26ALBUMS",
                                  orderColumn: nil))
        #expect(asset.relationships.first { $0.name == "adjustments" }?.storage
                    == .inverseForeignKey(column: "ZASSET", orderColumn: "Z_FOK_ASSET"))
        // Join columns are numbered too when two join tables of an entity share a name.
        #expect(asset.relationships.first { $0.name == "suggestionsBeingRepresentativeAssets" }?.storage
                    == .joinTable(table: "Z_34SUGGESTIONSBEINGREPRESENTATIVEASSETS", sourceColumn: "Z_34REPRESENTATIVEASSETS1",
                                  destinationColumn: "Z_52SUGGESTIONSBEINGREPRESENTATIVEASSETS", orderColumn: nil))
        #expect(mapping.entity(named: "Person")?.relationships.first { $0.name == "mergeCandidates" }?.storage
                    == .joinTable(table: "Z_45MERGECANDIDATES", sourceColumn: "Z_45MERGECANDIDATES",
                                  destinationColumn: "REFLEXIVE", orderColumn: nil))
        // The to-one keeps the destination's entity number beside its key (GenericAsset has Asset).
        #expect(mapping.entity(named: "Adjustment")?.relationships.first { $0.name == "asset" }?.storage
                    == .foreignKey(column: "ZASSET", entityColumn: "Z34_ASSET"))
        // Album.assets and ImportSession.assets are two relationships of sibling entities.
        #expect(mapping.entity(named: "ImportSession")?.relationships.first { $0.name == "assets" }?.storage
                    == .inverseForeignKey(column: "ZIMPORTSESSION", orderColumn: "Z_FOK_IMPORTSESSION"))
    }

    @Test(arguments: CoreDataFixture.allCases)
    func everyMappedColumnExists(fixture: CoreDataFixture) throws {
        let folder = try TemporaryFolder()
        let connection = try fixture.connection(in: folder)
        let mapping = try CoreDataCatalog(connection).mapping
        let raw = try SchemaReader.read(connection.handle)
        func exists(_ table: String, _ column: String) -> Bool {
            raw.entity(named: table)?.attributes.contains { $0.name == column } ?? false
        }
        for entity in mapping.entities {
            for attribute in entity.attributes {
                #expect(exists(entity.table, attribute.column), "\(entity.name).\(attribute.name)")
            }
            for relationship in entity.relationships {
                let destination = try #require(mapping.entity(named: relationship.destination))
                switch relationship.storage {
                case .foreignKey(let column, let entityColumn):
                    #expect(exists(entity.table, column) && entityColumn.map { exists(entity.table, $0) } != false)
                case .inverseForeignKey(let column, let order):
                    #expect(exists(destination.table, column) && order.map { exists(destination.table, $0) } != false)
                case .joinTable(let table, let source, let target, let order):
                    #expect(exists(table, source) && exists(table, target) && order.map { exists(table, $0) } != false)
                }
            }
        }
    }

    @Test func mismatch_namesTheEntityAndAttribute() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        let info = try CoreDataStoreInfo(connection)
        let tables = Dictionary(try SchemaReader.read(connection.handle).entities.map { ($0.name, $0.attributes.map(\.name)) },
                                uniquingKeysWith: { a, _ in a })
        var model = try #require(info.cachedModel)
        let i = try #require(model.entities.firstIndex { $0.name == "ICNote" })
        model.entities[i].attributes.append(CoreDataAttribute(name: "pinnedColour", type: .string))
        let error = portalError { try CoreDataMapping.build(model: model, numbers: info.entityNumbers, tables: tables) }
        #expect(error?.kind == .coreDataModel && error?.entity == "ICNote" && error?.attribute == "pinnedColour")
        #expect(error?.message.contains("ZPINNEDCOLOUR") == true)
        var newer = try #require(info.cachedModel)
        newer.entities.append(CoreDataEntity(name: "ICSticker"))
        let missing = portalError { try CoreDataMapping.build(model: newer, numbers: info.entityNumbers, tables: tables) }
        #expect(missing?.entity == "ICSticker" && missing?.message.contains("Z_PRIMARYKEY") == true)
    }

    @Test func newerKindsOfAttributeAreLeftOutWithANote() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        let info = try CoreDataStoreInfo(connection)
        let tables = Dictionary(try SchemaReader.read(connection.handle).entities.map { ($0.name, $0.attributes.map(\.name)) },
                                uniquingKeysWith: { a, _ in a })
        var model = try #require(info.cachedModel)
        let i = try #require(model.entities.firstIndex { $0.name == "ICNote" })
        model.entities[i].attributes.append(CoreDataAttribute(name: "address", type: .composite))
        let t = try #require(model.entities[i].attributes.firstIndex { $0.name == "title" })
        model.entities[i].attributes[t].type = .unknown(2300)
        let mapping = try CoreDataMapping.build(model: model, numbers: info.entityNumbers, tables: tables)
        #expect(mapping.notes == ["left out ICNote.address: a Composite attribute, stored otherwise than in a column ZADDRESS"])
        let note = try #require(mapping.entity(named: "ICNote"))
        #expect(note.attributes.first { $0.name == "title" }?.column == "ZTITLE1")
        #expect(!note.attributes.contains { $0.name == "address" })
    }

    @Test func noModel_namesFromPrimaryKeyTableAndColumns() throws {
        let folder = try TemporaryFolder()
        let connection = try CoreDataFixture.monterey.connection(in: folder)
        let info = try CoreDataStoreInfo(connection)
        let tables = Dictionary(try SchemaReader.read(connection.handle).entities.map { ($0.name, $0.attributes.map(\.name)) },
                                uniquingKeysWith: { a, _ in a })
        let model = CoreDataCatalog.modelFromNames(info, tables: tables)
        let mapping = try CoreDataMapping.build(model: model, numbers: info.entityNumbers, tables: tables)
        #expect(mapping.entity(named: "ICNote")?.attributes.first { $0.name == "title1" }?.column == "ZTITLE1")
        #expect(mapping.entity(named: "ICNote")?.numbers == [11])
        // The persistent-history entities have no Z<name> table.
        #expect(mapping.entity(named: "CHANGE") == nil)
    }
}
