import CSQLite
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// `create` returns the row as stored; on an ordinary table it knows that row without INSERT …
/// RETURNING. Each answer is checked against the two others SQLite gives: the row RETURNING
/// returns for the same values (`insert(_:_:returning: .all)`), and the row read back.
@Suite struct CreateStoredRowTests {
    static let values: [Value] = [
        .null, .integer(0), .integer(-7), .integer(.max), .integer(.min), .integer(1 << 53 + 1),
        .real(3.0), .real(2.5), .real(-0.0), .real(1e300), .real(.infinity), .real(.nan), .real(-1.5e-7),
        .text(""), .text("12"), .text("1e3"), .text(" 4 "), .text("abc"), .text("3.0"), .text("0x10"), .text("Zürich"),
        .blob([]), .blob([0, 1, 255]),
    ]

    /// A store whose tables cover every affinity, NOT NULL, a STRICT table and one without rowid.
    func makeStore(_ folder: TemporaryFolder) throws -> Store {
        let store = try Store(path: folder.path("create.sqlite"))
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Plain (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, n NUMERIC, b BLOB, u,
                                    v VARCHAR(10), f FLOAT, k BIGINT NOT NULL);
                CREATE TABLE Strict (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, a ANY, k INT NOT NULL) STRICT;
                CREATE TABLE Keyed (code TEXT PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, u, k INT NOT NULL) WITHOUT ROWID;
                """)
        }
        return store
    }

    /// The row `insert` returns through RETURNING, or the error's kind.
    func returned(_ ctx: WriteContext, _ entity: String, _ values: [String: Value]) -> Result<[Value], PortalError> {
        Result {
            let assignments = values.sorted { $0.key < $1.key }.map { AttributeAssignment.value($0.key, $0.value) }
            return try ctx.insert(entity, assignments, returning: .all).rows.first?.values ?? []
        }.mapError { $0 as? PortalError ?? PortalError(.database, "\($0)") }
    }

    /// Every value in every column of every table: `create`'s row equals RETURNING's (but for the
    /// new key) and the row read back, value for value and type for type; where one fails, both do.
    @Test func theRowCreatedIsTheRowStored() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(folder)
        var code = 0
        for (entity, columns, key) in [("Plain", ["i", "r", "t", "n", "b", "u", "v", "f", "k"], "id"),
                                       ("Strict", ["i", "r", "t", "b", "a", "k"], "id"),
                                       ("Keyed", ["i", "r", "t", "b", "u", "k"], "code")] {
            for column in columns {
                for value in Self.values {
                    var given: [String: Value] = column == "k" ? [:] : ["k": 1]
                    given[column] = value
                    code += 1
                    let other = entity == "Keyed" ? ["code": Value.text("r\(code)")] : [:]
                    let mine = entity == "Keyed" ? ["code": Value.text("c\(code)")] : [:]
                    try store.write { ctx in
                        let viaReturning = returned(ctx, entity, given.merging(other) { a, _ in a })
                        let created = Result { try ctx.create(entity, given.merging(mine) { a, _ in a }) }
                        switch (viaReturning, created) {
                        case (.success(let expected), .success(let row)):
                            let keyIndex = try #require(row.names.firstIndex(of: key))
                            var expected = expected
                            expected[keyIndex] = row.value(at: keyIndex)
                            #expect(same(row.values, expected), "\(entity).\(column) = \(value): created \(row.values), returned \(expected)")
                            let read = try ctx.find(entity, where: "\(key) == %@", [row.value(at: keyIndex)])
                            #expect(read.count == 1 && same(read[0].values, row.values),
                                    "\(entity).\(column) = \(value): created \(row.values), read \(read.map(\.values))")
                            #expect(row.names == read.first?.names)
                        case (.failure(let expected), .failure(let error as PortalError)):
                            #expect(error.kind == expected.kind, "\(entity).\(column) = \(value)")
                        default:
                            Issue.record("\(entity).\(column) = \(value): RETURNING gave \(viaReturning), create \(created)")
                        }
                    }
                }
            }
        }
    }

    /// Equal values of the same type (a real 3.0 is not the integer 3; NaN equals NaN).
    func same(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            switch (x, y) {
            case (.real(let p), .real(let q)): p == q || (p.isNaN && q.isNaN)
            case (.integer(let p), .integer(let q)): p == q
            case (.text(let p), .text(let q)): p == q
            case (.blob(let p), .blob(let q)): p == q
            case (.null, .null): true
            default: false
            }
        }
    }

    /// A loop of creates on an ordinary table runs a plain INSERT: RETURNING costs several times
    /// the insert itself.
    @Test func anOrdinaryTableIsWrittenWithoutReturning() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(folder)
        let statements = try store.write { ctx in
            try recordingStatements(ctx) {
                for n in 0..<3 { try ctx.create("Plain", ["i": .integer(Int64(n)), "t": "x", "k": 1, "r": 2]) }
            }.statements.filter { $0.hasPrefix("INSERT") }
        }
        #expect(statements.count == 3)
        #expect(statements.allSatisfy { !$0.uppercased().contains("RETURNING") }, "\(statements)")
        let rows = try store.read { ctx in try ctx.find("Plain") }
        #expect(rows.map { $0["r"] } == [.real(2), .real(2), .real(2)])
    }

    /// What decides the row besides the values — a default, a generated column, an INTEGER
    /// PRIMARY KEY DESC (not the rowid) — keeps RETURNING, and the row is still as stored.
    @Test func defaultsAndGeneratedColumnsAreReturned() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("defaults.sqlite"))
        let rows = try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Defaults (id INTEGER PRIMARY KEY, name TEXT, made TEXT DEFAULT 'now', n INTEGER DEFAULT 7);
                CREATE TABLE Generated (id INTEGER PRIMARY KEY, i INTEGER, twice INTEGER AS (i * 2));
                CREATE TABLE Descending (id INTEGER PRIMARY KEY DESC, name TEXT);
                """)
            return try recordingStatements(ctx) {
                [try ctx.create("Defaults", ["name": "a"]), try ctx.create("Generated", ["i": 21]),
                 try ctx.create("Descending", ["name": "b"]), try ctx.create("Defaults", ["name": "c", "made": "then", "n": 1])]
            }
        }
        #expect(rows.result.map(\.values) == [[.integer(1), .text("a"), .text("now"), .integer(7)],
                                             [.integer(1), .integer(21), .integer(42)],
                                             [.null, .text("b")],
                                             [.integer(2), .text("c"), .text("then"), .integer(1)]])
        let inserts = rows.statements.filter { $0.hasPrefix("INSERT") }
        #expect(inserts.count == 4)
        #expect(inserts.prefix(3).allSatisfy { $0.contains("RETURNING") }, "\(inserts)")
        #expect(inserts.last?.contains("RETURNING") == false)
    }

    /// Raw SQL that changes the table inside the write is seen by the next create.
    @Test func aTableChangedInTheWriteIsReadAgain() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(folder)
        let rows = try store.write { ctx in
            let before = try ctx.create("Plain", ["i": 1, "k": 1])
            try ctx.execute("ALTER TABLE Plain ADD COLUMN extra TEXT DEFAULT 'e'")
            let after = try ctx.create("Plain", ["i": 1, "k": 1])
            try ctx.execute("ALTER TABLE Plain DROP COLUMN extra")
            try ctx.execute("ALTER TABLE Plain ADD COLUMN other INTEGER")
            let last = try ctx.create("Plain", ["i": "1", "k": 1, "other": 5])
            return [before, after, last]
        }
        #expect(rows.map(\.names.last) == ["k", "extra", "other"])
        #expect(rows[1]["extra"] == .text("e"))
        #expect(rows[2]["i"] == .integer(1) && rows[2]["other"] == .integer(5))
        // The same through INSERT … RETURNING *, which a default left out needs.
        let returned = try store.write { ctx in
            try ctx.execute("CREATE TABLE Dated (id INTEGER PRIMARY KEY, made TEXT DEFAULT 'now')")
            let before = try ctx.create("Dated", ["id": 1])
            try ctx.execute("ALTER TABLE Dated ADD COLUMN extra TEXT DEFAULT 'e'")
            return [before, try ctx.create("Dated", ["id": 2])]
        }
        #expect(returned.map(\.names) == [["id", "made"], ["id", "made", "extra"]])
        #expect(returned[1].values == [.integer(2), .text("now"), .text("e")])
    }

    /// Every column of a wide table, names that are not ASCII or are long among them, is found.
    @Test func everyColumnOfAWideTableIsFound() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("wide.sqlite"))
        // colAz, colBz, colCz: short names that differ in one byte inside.
        let names = (0..<40).map { "c\($0)" } + ["größe", "a_rather_long_column_name_of_many_bytes", "x", "colAz", "colBz", "colCz"]
        let (created, read) = try store.write { ctx in
            try ctx.execute("CREATE TABLE Wide (\(names.map { "\"\($0)\" INTEGER" }.joined(separator: ", ")))")
            var values: [String: Value] = [:]
            for (i, name) in names.enumerated() { values[name] = .integer(Int64(i * 3)) }
            let created = try ctx.create("Wide", values)
            return (created, try ctx.find("Wide"))
        }
        #expect(created.names == names)
        #expect(created.values == names.indices.map { .integer(Int64($0 * 3)) })
        #expect(read.map(\.values) == [created.values])
    }

    /// A loop of creates in one write, each giving other columns: a column the last row gave
    /// and this one leaves out is NULL in the row returned, as in the row stored.
    @Test func aLoopOfCreatesGivingOtherColumnsReturnsEachRowAsStored() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(folder)
        let rows: [[String: Value]] = [
            ["i": 1, "r": 2.5, "t": "one", "n": 4, "b": .blob([1]), "u": "u", "v": "v", "f": 0.5, "k": 1],
            ["k": 2],
            ["i": 3, "k": 3],
            ["t": "four", "f": 4, "k": 4],
            ["i": 5, "r": 5, "t": "five", "n": 5, "b": .blob([5]), "u": 5, "v": "five", "f": 5, "k": 5],
            ["k": 6, "t": .null],
        ]
        let (created, read) = try store.write { ctx in
            (try rows.map { try ctx.create("Plain", $0) }, try ctx.find("Plain", sortedBy: [SortKey("id")]))
        }
        #expect(created.map(\.values) == read.map(\.values))
        #expect(created[1]["i"] == .null && created[1]["t"] == .null && created[3]["i"] == .null && created[5]["b"] == .null)
        #expect(created[3]["f"] == .real(4))
    }

    /// A REAL column added in the write, between two inserts of the same columns returning
    /// their rows: the second row has the real it stores (RETURNING gives the default 3 as an
    /// integer), and so has a create into a table the write made a view of, and back.
    @Test func aColumnAddedInTheWriteIsReturnedAsStored() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("altered.sqlite"))
        let rows = try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a INTEGER, b TEXT)")
            let first = try ctx.insert("T", [.value("a", 1)], returning: .all).rows
            try ctx.execute("ALTER TABLE T ADD COLUMN c REAL DEFAULT 3")
            let second = try ctx.insert("T", [.value("a", 2)], returning: .all).rows
            return first + second
        }
        #expect(rows.map(\.values) == [[1, .null], [2, .null, .real(3)]])
        let created = try store.write { ctx in
            try ctx.execute("CREATE TABLE G (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2))")
            let generated = try ctx.create("G", ["a": 2])
            try ctx.execute("DROP TABLE G; CREATE TABLE G (a INTEGER, b REAL)")
            return [generated, try ctx.create("G", ["a": 3, "b": 4])]
        }
        #expect(created.map(\.values) == [[2, 4], [3, .real(4)]])
    }

    /// A name in another case than the column's, and an unknown name, take the general path.
    @Test func namesInAnotherCaseAndUnknownNames() throws {
        let folder = try TemporaryFolder()
        let store = try makeStore(folder)
        let row = try store.write { ctx in try ctx.create("Plain", ["I": 3, "K": 1]) }
        #expect(row["i"] == .integer(3))
        let error = portalError { try store.write { ctx in try ctx.create("Plain", ["nope": 3, "k": 1]) } }
        #expect(error?.kind == .unknownAttribute)
    }
}

/// The SQL of each statement `body` runs on the context's SQLite connection.
func recordingStatements<T>(_ ctx: WriteContext, _ body: () throws -> T) throws -> (result: T, statements: [String]) {
    let log = StatementLog()
    let connection = try #require(ctx.connection as? Connection)
    let pointer = Unmanaged.passUnretained(log).toOpaque()
    sqlite3_trace_v2(connection.handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
        guard let context, let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
        Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue().statements.append(String(cString: sql))
        return 0
    }, pointer)
    defer { sqlite3_trace_v2(connection.handle, 0, nil, nil) }
    let result = try body()
    return (result, log.statements)
}

/// The statements `recordingStatements` saw.
private final class StatementLog { var statements: [String] = [] }
