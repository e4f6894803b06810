import Testing
@testable import PortalEngine
@testable import PortalSQLite

@Suite struct SchemaReaderTests {
    @Test func chinookEntitiesAndKeys() throws {
        let schema = try TestDatabase.chinook().schema()
        #expect(schema.entities.map(\.name).sorted() == [
            "Album", "Artist", "Customer", "Employee", "Genre", "Invoice", "InvoiceLine", "MediaType",
            "Playlist", "PlaylistTrack", "Track",
        ])
        let track = try #require(schema.entity(named: "Track"))
        #expect(track.primaryKey == ["TrackId"])
        #expect(track.hasRowid)
        #expect(track.kind == .table)
        #expect(track.attributes.map(\.name) == ["TrackId", "Name", "AlbumId", "MediaTypeId", "GenreId", "Composer",
                                                  "Milliseconds", "Bytes", "UnitPrice"])
        let name = try #require(track.attribute(named: "Name"))
        #expect(name.declaredType == "NVARCHAR(200)")
        #expect(!name.isNullable)
        #expect(try #require(track.attribute(named: "Composer")).isNullable)
        #expect(track.attribute(named: "TrackId")?.primaryKeyPosition == 1)
        #expect(schema.entity(named: "PlaylistTrack")?.primaryKey == ["PlaylistId", "TrackId"])
        #expect(schema.entity(named: "track")?.name == "Track")
        #expect(track.indexes.contains(IndexDescription(name: "IFK_TrackAlbumId", columns: ["AlbumId"], isUnique: false)))
    }

    @Test func chinookRelationships() throws {
        let schema = try TestDatabase.chinook().schema()
        func relationship(_ entity: String, _ name: String) -> RelationshipDescription? {
            schema.entity(named: entity)?.relationships.first { $0.name == name }
        }
        let album = try #require(relationship("Track", "Album"))
        #expect(album.kind == .toOne && album.destination == "Album")
        #expect(album.sourceColumns == ["AlbumId"] && album.destinationColumns == ["AlbumId"])
        #expect(relationship("Track", "Genre")?.kind == .toOne)
        #expect(relationship("Track", "MediaType")?.kind == .toOne)
        let tracks = try #require(relationship("Album", "tracks"))
        #expect(tracks.kind == .toMany && tracks.destination == "Track")
        #expect(tracks.sourceColumns == ["AlbumId"] && tracks.destinationColumns == ["AlbumId"])
        #expect(relationship("Artist", "albums")?.kind == .toMany)
        #expect(relationship("Album", "Artist")?.kind == .toOne)
        #expect(relationship("Employee", "customers")?.destination == "Customer")
        #expect(relationship("Customer", "SupportRep")?.destination == "Employee")
        #expect(relationship("Customer", "invoices")?.kind == .toMany)
        #expect(relationship("Invoice", "invoiceLines")?.kind == .toMany)
        #expect(relationship("Track", "invoiceLines")?.kind == .toMany)
        #expect(relationship("Track", "playlistTracks")?.kind == .toMany)
        // ReportsTo has no Id suffix: the name would be the column's, so it gets `Ref`;
        // its inverse is the only Employee → Employee key, so it needs no `_by` suffix.
        let reportsTo = try #require(relationship("Employee", "ReportsToRef"))
        #expect(reportsTo.kind == .toOne && reportsTo.destination == "Employee")
        let employees = try #require(relationship("Employee", "employees"))
        #expect(employees.kind == .toMany && employees.sourceColumns == ["EmployeeId"]
            && employees.destinationColumns == ["ReportsTo"])
        let employee = try #require(schema.entity(named: "Employee"))
        #expect(employee.toOneRelationship(traversing: "ReportsTo")?.name == "ReportsToRef")
        let customer = try #require(schema.entity(named: "Customer"))
        #expect(customer.toOneRelationship(traversing: "SupportRepId")?.name == "SupportRep")
        #expect(customer.toOneRelationship(traversing: "supportrep")?.name == "SupportRep")
        #expect(customer.toOneRelationship(traversing: "Country") == nil)
    }

    /// Every Chinook entity's key and relationships, in declaration order.
    @Test func everyChinookKeyAndRelationship() throws {
        let schema = try TestDatabase.chinook().schema()
        let expected: [String: ([String], [String])] = [
            "Album": (["AlbumId"], ["Artist:to-one:Artist", "tracks:to-many:Track"]),
            "Artist": (["ArtistId"], ["albums:to-many:Album"]),
            "Customer": (["CustomerId"], ["SupportRep:to-one:Employee", "invoices:to-many:Invoice"]),
            "Employee": (["EmployeeId"], ["ReportsToRef:to-one:Employee", "customers:to-many:Customer",
                                          "employees:to-many:Employee"]),
            "Genre": (["GenreId"], ["tracks:to-many:Track"]),
            "Invoice": (["InvoiceId"], ["Customer:to-one:Customer", "invoiceLines:to-many:InvoiceLine"]),
            "InvoiceLine": (["InvoiceLineId"], ["Invoice:to-one:Invoice", "Track:to-one:Track"]),
            "MediaType": (["MediaTypeId"], ["tracks:to-many:Track"]),
            "Playlist": (["PlaylistId"], ["playlistTracks:to-many:PlaylistTrack"]),
            "PlaylistTrack": (["PlaylistId", "TrackId"], ["Playlist:to-one:Playlist", "Track:to-one:Track"]),
            "Track": (["TrackId"], ["Album:to-one:Album", "Genre:to-one:Genre", "MediaType:to-one:MediaType",
                                    "invoiceLines:to-many:InvoiceLine", "playlistTracks:to-many:PlaylistTrack"]),
        ]
        #expect(schema.entities.count == expected.count)
        for entity in schema.entities {
            let (key, relationships) = try #require(expected[entity.name])
            #expect(entity.primaryKey == key, "\(entity.name)")
            #expect(entity.relationships.map { "\($0.name):\($0.kind.rawValue):\($0.destination)" } == relationships,
                    "\(entity.name)")
        }
    }

    @Test func edgeCases() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE "Per son" ("Ünïcode Id" INTEGER PRIMARY KEY, "na""me" TEXT DEFAULT 'x', age INT NOT NULL);
            CREATE TABLE pairs (a INTEGER, b TEXT, note TEXT, PRIMARY KEY (b, a)) WITHOUT ROWID;
            CREATE TABLE loose (x, y);
            CREATE VIEW adults AS SELECT * FROM "Per son" WHERE age >= 18;
            CREATE TABLE message (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES "Per son",
                                  editorId INTEGER REFERENCES "Per son"("Ünïcode Id"),
                                  pa INTEGER, pb TEXT, FOREIGN KEY (pa, pb) REFERENCES pairs (a, b));
            CREATE TABLE edge (id INTEGER PRIMARY KEY, fromId INTEGER REFERENCES node, toId INTEGER REFERENCES node,
                               "from" TEXT);
            CREATE TABLE node (id INTEGER PRIMARY KEY);
            CREATE UNIQUE INDEX "idx ü" ON "Per son" ("na""me", age);
            """)
        let schema = try database.schema()
        let person = try #require(schema.entity(named: "Per son"))
        #expect(person.primaryKey == ["Ünïcode Id"])
        #expect(person.attributes.map(\.name) == ["Ünïcode Id", "na\"me", "age"])
        #expect(person.attribute(named: "na\"me")?.defaultValue == "'x'")
        #expect(person.indexes == [IndexDescription(name: "idx ü", columns: ["na\"me", "age"], isUnique: true)])

        let pairs = try #require(schema.entity(named: "pairs"))
        #expect(!pairs.hasRowid)
        #expect(pairs.primaryKey == ["b", "a"])
        #expect(pairs.identifyingColumns == ["b", "a"])
        #expect(pairs.relationship(named: "messages")?.kind == .toMany)

        let loose = try #require(schema.entity(named: "loose"))
        #expect(loose.primaryKey.isEmpty && loose.hasRowid && loose.identifyingColumns == ["rowid"])
        #expect(loose.attributes.map(\.declaredType) == ["", ""])

        let adults = try #require(schema.entity(named: "adults"))
        #expect(adults.kind == .view && !adults.hasRowid && adults.primaryKey.isEmpty)
        #expect(adults.attributes.map(\.name) == ["Ünïcode Id", "na\"me", "age"])

        let message = try #require(schema.entity(named: "message"))
        #expect(message.relationship(named: "author")?.destinationColumns == ["Ünïcode Id"])
        #expect(message.relationship(named: "editor")?.destination == "Per son")
        let composite = try #require(message.relationship(named: "pairs"))
        #expect(composite.sourceColumns == ["pa", "pb"] && composite.destinationColumns == ["a", "b"])

        // Two keys from message to "Per son": both inverses get `_by<Column>`.
        #expect(Set(person.relationships.map(\.name)) == ["messages_byauthor_id", "messages_byeditorId"])

        // `fromId` → `from` collides with the attribute "from": `Ref` is added.
        let edge = try #require(schema.entity(named: "edge"))
        #expect(Set(edge.relationships.map(\.name)) == ["fromRef", "to"])
        #expect(Set(try #require(schema.entity(named: "node")).relationships.map(\.name))
            == ["edges_byfromId", "edges_bytoId"])
    }

    @Test func nullabilityOfKeys() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE alias (id INTEGER PRIMARY KEY, a TEXT);
            CREATE TABLE textKey (k TEXT PRIMARY KEY, b INT);
            CREATE TABLE strict (k TEXT PRIMARY KEY, b INT) WITHOUT ROWID;
            CREATE TABLE intKey (id INT PRIMARY KEY);
            """)
        let schema = try database.schema()
        func nullable(_ entity: String, _ attribute: String) -> Bool? {
            schema.entity(named: entity)?.attribute(named: attribute)?.isNullable
        }
        // The rowid alias can never be NULL; a TEXT (or INT, not INTEGER) key of a rowid table
        // can, as SQLite's legacy rule allows; WITHOUT ROWID keys are NOT NULL.
        #expect(nullable("alias", "id") == false)
        #expect(nullable("alias", "a") == true)
        #expect(nullable("textKey", "k") == true)
        #expect(nullable("intKey", "id") == true)
        #expect(nullable("strict", "k") == false)
    }

    /// SQLite makes a key column the rowid when its type is `INTEGER` in any ASCII case, and only
    /// then: a Turkish dotless `ı` upper-cases to `I` in Unicode, but `ınteger` is another type,
    /// whose key can hold NULL, so the rowid identifies the rows.
    @Test func rowidAliasTypeInAnyASCIICaseOnly() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE lower (id integer PRIMARY KEY, a TEXT);
            CREATE TABLE mixed (id InTeGeR PRIMARY KEY, a TEXT);
            CREATE TABLE dotless (id "ınteger" PRIMARY KEY, a TEXT);
            INSERT INTO dotless VALUES (NULL, 'x'), (NULL, 'y');
            """)
        let schema = try database.schema()
        for name in ["lower", "mixed"] {
            let entity = try #require(schema.entity(named: name))
            #expect(entity.rowKey == ["id"])
            #expect(entity.attribute(named: "id")?.isNullable == false)
        }
        let dotless = try #require(schema.entity(named: "dotless"))
        #expect(dotless.attribute(named: "id")?.isDeclaredInteger == false)
        #expect(dotless.attribute(named: "id")?.isNullable == true)
        #expect(dotless.rowKey == ["rowid"])
    }

    @Test func brokenViewDoesNotHideTheSchema() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT);
            CREATE VIEW v AS SELECT x FROM a;
            CREATE TABLE b (id INTEGER PRIMARY KEY, aId INTEGER REFERENCES a);
            CREATE INDEX b_expr ON b (aId + 1);
            """)
        try database.execute("PRAGMA legacy_alter_table = ON; DROP TABLE a")
        let schema = try database.schema()
        #expect(schema.entity(named: "v")?.attributes.isEmpty == true)
        #expect(schema.entity(named: "b")?.attributes.map(\.name) == ["id", "aId"])
        // The key's parent is gone: no relationship, and no crash.
        #expect(schema.entity(named: "b")?.relationships.isEmpty == true)
        #expect(schema.entity(named: "b")?.indexes.first?.columns == [""])
    }
}
