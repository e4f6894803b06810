import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The additions a shell needs to run user-typed SQL through a store: one-off statements read in
/// place, the read-only test, the writer's total changes, and leaving the journal mode alone.
@Suite struct StoreRawStatementTests {
    @Test func forEachRowHandsColumnsFirstThenTheStatementPerRow() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            try ctx.create("User", ["name": "A", "age": 3])
            try ctx.create("User", ["name": "B", "age": 4])
        }
        var columns: [String] = []
        var ages: [Int64] = []
        try store.read { ctx in
            try ctx.forEachRow("SELECT name, age FROM User WHERE age > ? ORDER BY id", [.integer(0)],
                               columns: { columns = $0 }) { ages.append($0.int64(at: 1)) }
        }
        #expect(columns == ["name", "age"])
        #expect(ages == [3, 4])
        // No row: the columns are still known.
        var empty: [String] = []
        try store.read { ctx in
            try ctx.forEachRow("SELECT id FROM User WHERE 0", [], columns: { empty = $0 }) { _ in Issue.record("a row") }
        }
        #expect(empty == ["id"])
    }

    @Test func forEachRowRefusesAWriteInAReadAndRunsItInAWrite() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = portalError {
            try store.read { ctx in try ctx.forEachRow("DELETE FROM User", [], columns: { _ in }) { _ in } }
        }
        #expect(error?.kind == .writeInRead)
        var names: [String] = []
        let changed = try store.write { ctx in
            let before = ctx.totalChanges
            try ctx.forEachRow("INSERT INTO User (name) VALUES ('A'), ('B') RETURNING name", [], columns: { _ in }) {
                if case .text(let name) = $0.value(at: 0) { names.append(name) }
            }
            return ctx.totalChanges - before
        }
        #expect(names == ["A", "B"])
        #expect(changed == 2)
        #expect(try store.read { try $0.count("User") } == 2)
    }

    @Test func isReadOnlyTellsReadsFromWrites() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let answers = try store.read { ctx in
            [try ctx.isReadOnly("SELECT * FROM User"), try ctx.isReadOnly("DELETE FROM User"),
             try ctx.isReadOnly("CREATE TABLE T (x)")]
        }
        #expect(answers == [true, false, false])
    }

    @Test func aStoreThatDoesNotSwitchToWALLeavesTheJournalModeAlone() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("rollback.sqlite")
        var options = StoreOptions()
        options.switchesToWAL = false
        let kept = try Store(path: path, options: options)
        try kept.write { try $0.execute("CREATE TABLE T (x)") }
        try kept.close()
        #expect(try fileFormatVersions(path) == [1, 1])   // rollback journal
        let switched = try Store(path: path)
        try switched.close()
        #expect(try fileFormatVersions(path) == [2, 2])   // WAL
    }

    /// Bytes 18 and 19 of the database header: 1 for a rollback journal, 2 for WAL.
    private func fileFormatVersions(_ path: String) throws -> [UInt8] {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
        return Array(header.suffix(2))
    }
}

/// The first words of a statement, which decide whether it is transaction control (refused) or,
/// on a server, a read: after comments, `;` and `(`, in any case, read no further than needed.
@Suite struct StatementWordTests {
    @Test func leadingWordsSkipCommentsAndParentheses() {
        #expect(SQLStatements.leadingWords("  -- note\n/* a\n b */ ;(select * from t", 2) == ["select"])
        #expect(SQLStatements.leadingWords("EXPLAIN ANALYZE SELECT 1", 2) == ["EXPLAIN", "ANALYZE"])
        #expect(SQLStatements.leadingWords("with_x1 Ünïcode", 2) == ["with_x1", "Ünïcode"])
        #expect(SQLStatements.leadingWords("/* unterminated", 2).isEmpty)
        #expect(SQLStatements.leadingWords("", 2).isEmpty)
        #expect(SQLStatements.leadingWords("SELECT*FROM t", 2) == ["SELECT"])
    }

    @Test func transactionControlIsKnownByItsWords() {
        #expect(SQLStatements.transactionControl("/* c */ begin immediate") == "BEGIN")
        #expect(SQLStatements.transactionControl("-- c\nStart Transaction") == "START TRANSACTION")
        #expect(SQLStatements.transactionControl("start_x") == nil)
        #expect(SQLStatements.transactionControl("SELECT 'BEGIN'") == nil)
        #expect(SQLStatements.transactionControl(";;release sp") == "RELEASE")
        #expect(SQLStatements.hasStatement(" -- only a comment\n ;") == false)
        #expect(SQLStatements.hasStatement("-- c\nSELECT 1"))
    }
}
