import Foundation
import PortalPredicate
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// A catalog that maps model names onto Core Data-style tables (ZNOTE, Z_PK, Z_ENT, a join table),
/// written by hand: the engine must reach every table and column through it alone. Each answer is
/// compared with SQL written against the raw tables.
private struct NotesCatalog: Catalog {
    func schema(of connection: any DatabaseConnection, tables: Schema) throws -> Schema {
        func attribute(_ name: String, _ column: String, _ type: String = "VARCHAR",
                       storage: StorageConvention = .natural) -> AttributeDescription {
            AttributeDescription(name: name, declaredType: type, isNullable: true, defaultValue: nil,
                                 primaryKeyPosition: nil, column: column, storage: storage)
        }
        let folderToNotes = RelationshipDescription(name: "notes", kind: .toMany, destination: "Note",
                                                    sourceColumns: ["Z_PK"], destinationColumns: ["ZFOLDER"])
        let noteToFolder = RelationshipDescription(name: "folder", kind: .toOne, destination: "Folder",
                                                   sourceColumns: ["ZFOLDER"], destinationColumns: ["Z_PK"])
        let tags = RelationshipDescription.JoinTable(table: "Z_2TAGS", sourceColumns: ["Z_2NOTES"], destinationColumns: ["Z_4TAGS"])
        let noteToTags = RelationshipDescription(name: "tags", kind: .toMany, destination: "Tag", sourceColumns: ["Z_PK"],
                                                 destinationColumns: ["Z_PK"], joinTable: tags)
        let tagToNotes = RelationshipDescription(
            name: "notes", kind: .toMany, destination: "Note", sourceColumns: ["Z_PK"], destinationColumns: ["Z_PK"],
            joinTable: .init(table: "Z_2TAGS", sourceColumns: ["Z_4TAGS"], destinationColumns: ["Z_2NOTES"]))
        let noteAttributes = [attribute("title", "ZTITLE"),
                              attribute("created", "ZCREATIONDATE", "TIMESTAMP", storage: .secondsSinceReferenceDate)]
        func note(_ name: String, _ values: [Int64], extra: [AttributeDescription] = []) -> EntityDescription {
            EntityDescription(name: name, kind: .table, attributes: noteAttributes + extra, primaryKey: ["Z_PK"], hasRowid: true,
                              relationships: [noteToFolder, noteToTags], indexes: [], table: "ZNOTE",
                              discriminator: .init(column: "Z_ENT", values: values))
        }
        return Schema(entities: [
            EntityDescription(name: "Folder", kind: .table, attributes: [attribute("name", "ZNAME")], primaryKey: ["Z_PK"],
                              hasRowid: true, relationships: [folderToNotes], indexes: [], table: "ZFOLDER"),
            note("Note", [2, 3]),
            note("Checklist", [3], extra: [attribute("items", "ZITEMS", "INTEGER")]),
            EntityDescription(name: "Tag", kind: .table, attributes: [attribute("label", "ZLABEL")], primaryKey: ["Z_PK"],
                              hasRowid: true, relationships: [tagToNotes], indexes: [], table: "ZTAG"),
        ])
    }
}

@Suite struct CatalogMappingTests {
    private static let tables = """
        CREATE TABLE ZFOLDER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR);
        CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZTITLE VARCHAR, ZCREATIONDATE TIMESTAMP,
                            ZFOLDER INTEGER, ZITEMS INTEGER);
        CREATE TABLE ZTAG (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZLABEL VARCHAR);
        CREATE TABLE Z_2TAGS (Z_2NOTES INTEGER, Z_4TAGS INTEGER, PRIMARY KEY (Z_2NOTES, Z_4TAGS));
        INSERT INTO ZFOLDER VALUES (1, 1, 'Work'), (2, 1, 'Home'), (3, 1, 'Empty');
        -- 2023-06-01 and 2024-03-02 UTC as seconds since 2001.
        INSERT INTO ZNOTE VALUES (1, 2, 'plan', 707270400, 1, NULL), (2, 2, 'budget', 731030400, 1, NULL),
                                 (3, 3, 'groceries', 731030400, 2, 12), (4, 2, 'loose', NULL, NULL, NULL);
        INSERT INTO ZTAG VALUES (1, 4, 'urgent'), (2, 4, 'later');
        INSERT INTO Z_2TAGS VALUES (1, 1), (2, 1), (2, 2), (3, 2);
        """

    /// A store on the raw tables read through `NotesCatalog`, and a plain one on the same file.
    private func stores(_ folder: TemporaryFolder) throws -> (mapped: Store, raw: Store) {
        let path = folder.path("notes.sqlite")
        let raw = try Store(path: path)
        try raw.write { ctx in try ctx.execute(Self.tables) }
        var options = StoreOptions()
        options.catalog = NotesCatalog()
        return (try Store(path: path, options: options), raw)
    }

    private func ids(_ store: Store, _ sql: String) throws -> [Int64] {
        try store.read { ctx in try ctx.query(sql).rows.compactMap { row -> Int64? in
            if case .integer(let n) = row[0].value { return n } else { return nil }
        } }
    }

    private func titles(_ store: Store, _ entity: String, _ predicate: String?) throws -> [String] {
        try store.read { ctx in
            try ctx.find(entity, where: predicate, sortedBy: [SortKey("title")]).compactMap { row -> String? in
                if case .text(let title)? = row["title"] { return title } else { return nil }
            }
        }
    }

    @Test func entitiesOfASharedTableKeepToTheirOwnRows() throws {
        let folder = try TemporaryFolder()
        let (mapped, raw) = try stores(folder)
        #expect(try mapped.read { ctx in try ctx.count("Note") } == ids(raw, "SELECT Z_PK FROM ZNOTE WHERE Z_ENT IN (2, 3)").count)
        #expect(try mapped.read { ctx in try ctx.count("Checklist") } == 1)
        let checklist = try mapped.read { ctx in try ctx.find("Checklist") }
        #expect(checklist.first?.names == ["title", "created", "items"])
        #expect(checklist.first?["items"] == 12)
        // Core Data's seconds since 2001 read as the engine's date text.
        #expect(checklist.first?["created"] == "2024-03-02 00:00:00")
    }

    @Test func keyPathsCrossToOneToManyAndManyToMany() throws {
        let folder = try TemporaryFolder()
        let (mapped, raw) = try stores(folder)
        let cases: [(String, String, String)] = [
            ("Note", #"folder.name == "Work""#,
             "SELECT n.ZTITLE FROM ZNOTE n JOIN ZFOLDER f ON f.Z_PK = n.ZFOLDER WHERE n.Z_ENT IN (2,3) AND f.ZNAME = 'Work'"),
            ("Note", #"ANY tags.label == "later""#,
             "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT IN (2,3) AND Z_PK IN (SELECT Z_2NOTES FROM Z_2TAGS JOIN ZTAG ON ZTAG.Z_PK = Z_4TAGS WHERE ZLABEL = 'later')"),
            ("Note", "tags.@count == 0",
             "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT IN (2,3) AND Z_PK NOT IN (SELECT Z_2NOTES FROM Z_2TAGS)"),
            ("Note", #"SUBQUERY(tags, $t, $t.label BEGINSWITH "u").@count > 0 AND folder.name == "Work""#,
             "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT IN (2,3) AND ZFOLDER = 1 AND Z_PK IN (SELECT Z_2NOTES FROM Z_2TAGS WHERE Z_4TAGS = 1)"),
            ("Checklist", #"ANY tags.label == "later""#, "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT = 3"),
            ("Note", #"created < CAST("2024-01-01", "NSDate")"#,
             "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT IN (2,3) AND ZCREATIONDATE < strftime('%s', '2024-01-01') - 978307200"),
            ("Note", "created == nil", "SELECT ZTITLE FROM ZNOTE WHERE Z_ENT IN (2,3) AND ZCREATIONDATE IS NULL"),
        ]
        for (entity, predicate, sql) in cases {
            let expected = try raw.read { ctx in try ctx.query(sql + " ORDER BY 1").rows.map { $0[0].value } }
            let found = try titles(mapped, entity, predicate).map { Value.text($0) }
            #expect(found == expected, "\(entity) where \(predicate)")
            #expect(!expected.isEmpty, "\(predicate) must match something to show anything")
        }
        let folders = try mapped.read { ctx in try ctx.find("Folder", where: "notes.@count >= 1 AND ANY notes.tags.label == 'urgent'") }
        #expect(folders.map { $0["name"] } == ["Work"])
        let tagged = try mapped.read { ctx in try ctx.count("Tag", where: #"ANY notes.folder.name == "Home""#) }
        #expect(tagged == 1)
    }

    @Test func writesGoToTheMappedColumnsOfTheEntitysOwnRows() throws {
        let folder = try TemporaryFolder()
        let (mapped, raw) = try stores(folder)
        let renamed = try mapped.write { ctx in try ctx.update("Note", set: ["title": "plan B"], where: #"title == "plan""#) }
        #expect(renamed == 1)
        #expect(try ids(raw, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'plan B'") == [1])
        // A delete of the sub-entity leaves its parent's other rows alone.
        #expect(try mapped.write { ctx in try ctx.delete("Checklist") } == 1)
        #expect(try ids(raw, "SELECT Z_PK FROM ZNOTE ORDER BY Z_PK") == [1, 2, 4])
        // A date written through the value compiler is stored in Core Data's convention.
        let schema = try mapped.read { ctx in try ctx.schema }
        let note = try #require(schema.entity(named: "Note"))
        let created = try #require(note.attribute(named: "created"))
        for (text, stored) in [(#"CAST("2024-03-01", "NSDate")"#, Value.integer(730_944_000)),
                               (#""2001-01-01 00:00:01.5""#, .real(1.5))] {
            let value = try PredicateCompiler.compileValue(text, for: created, entity: note, schema: schema, alias: nil, dialect: .sqlite)
            #expect(value.bindings == [stored], "\(text)")
        }
        #expect(throws: PortalPredicate.PortalPredicateError.self) {
            try PredicateCompiler.compileValue(#""soon""#, for: created, entity: note, schema: schema, alias: nil, dialect: .sqlite)
        }
        let tag = try mapped.write { ctx in try ctx.create("Tag", ["label": "someday"]) }
        #expect(tag["label"] == "someday")
        #expect(try ids(raw, "SELECT Z_PK FROM ZTAG WHERE ZLABEL = 'someday'").count == 1)
    }
}
