import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The contract's examples, with predicates compiled by the SQL compiler.
@Suite struct PredicateQueryTests {
    /// A store with five users; the folder lives as long as the fixture.
    struct Fixture {
        let folder: TemporaryFolder
        let store: Store
    }

    private func populated() throws -> Fixture {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            for (name, age) in [("Bruce", 42), ("brian", 25), ("Alice", 31), ("Kid", 12), ("Brenda", 35)] {
                try ctx.create("User", ["name": .text(name), "age": .integer(Int64(age))])
            }
        }
        return Fixture(folder: folder, store: store)
    }

    @Test func theIssueExampleRunsAsWritten() throws {
        let fixture = try populated()
        let store = fixture.store
        let n = try store.read { ctx in try ctx.count("User", where: "age > %@", [30]) }
        #expect(n == 3)
        try store.write { ctx in
            let row = try ctx.create("User", ["name": "Bruce Jr", "age": 42])
            #expect(row["id"] == .integer(6))
            let updated = try ctx.update("User", set: ["age": 43], where: "name == %@", ["Bruce"])
            #expect(updated == 1)
            let deleted = try ctx.delete("User", where: "age < %@", [18])
            #expect(deleted == 1)
        }
        let rows: [Row] = try store.read { ctx in
            try ctx.find("User", where: "name BEGINSWITH[c] %@", ["br"],
                         sortedBy: [SortKey("age", ascending: false)], limit: 10)
        }
        #expect(rows.map { $0["name"] } == ["Bruce", "Bruce Jr", "Brenda", "brian"])
        #expect(rows.first?["age"] == 43)
    }

    /// Apple's printf specifiers and `%K` (also after a dot) in the Swift API.
    @Test func printfSpecifiersInTheSwiftAPI() throws {
        let fixture = try populated()
        let counts = try fixture.store.read { ctx in
            [try ctx.count("User", where: "age > %lu", [30]),
             try ctx.count("User", where: "%K >= %hd AND %K < %lld", ["age", 25, "age", 42]),
             try ctx.count("User", where: "age <= %e OR age == %la", [12.0, 42.0]),
             try ctx.count("User", where: "lowercase:(%K) BEGINSWITH %s", ["name", "br"]),
             try ctx.count("User", where: "(age & %u) != 0", [1])]
        }
        #expect(counts == [3, 3, 2, 3, 3])
    }

    @Test func firstFollowsTheSortOrder() throws {
        let fixture = try populated()
        let store = fixture.store
        let youngest = try store.read { ctx in try ctx.first("User", sortedBy: [SortKey("age")]) }
        #expect(youngest?["name"] == "Kid")
        let none = try store.read { ctx in try ctx.first("User", where: "age > 100") }
        #expect(none == nil)
    }

    @Test func keysetPagingWithSelfAndRowid() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Note (text TEXT)")
            for i in 1...25 { try ctx.create("Note", ["text": .text("n\(i)")]) }
        }
        var pages: [[Value]] = []
        var last: Int64 = 0
        while true {
            let page = try store.read { ctx in
                try ctx.find("Note", where: "SELF > %@", [last], sortedBy: [SortKey("SELF")], limit: 10, includeRowid: true)
            }
            guard let end = page.last, case .integer(let id)? = end["rowid"] else { break }
            #expect(page.first?.names == ["rowid", "text"])
            pages.append(page.compactMap { $0["text"] })
            last = id
        }
        #expect(pages.map(\.count) == [10, 10, 5])
        #expect(pages.joined().first == "n1")
        #expect(pages.joined().last == "n25")
    }

    @Test func predicateErrorsAreTypedWithTheEntity() throws {
        let fixture = try populated()
        let store = fixture.store
        let error = portalError { _ = try store.read { ctx in try ctx.find("User", where: "agee > 3") } }
        #expect(error?.kind == .predicate)
        #expect(error?.entity == "User")
        #expect(error?.predicateError != nil)
        let syntax = portalError { _ = try store.read { ctx in try ctx.count("User", where: "age >") } }
        #expect(syntax?.kind == .predicate)
        let unknown = portalError { _ = try store.read { ctx in try ctx.count("Usr", where: "age > 1") } }
        #expect(unknown?.kind == .unknownEntity)
        #expect(unknown?.suggestion == "User")
    }

    @Test func explainShowsSQLBindingsAndPlan() throws {
        let fixture = try populated()
        let store = fixture.store
        let explanation = try store.read { ctx in try ctx.explain("User", where: "name == %@", ["Bruce"]) }
        #expect(explanation.sql.hasPrefix("SELECT t0.* FROM \"User\" AS t0 WHERE"))
        #expect(explanation.bindings.contains(.text("Bruce")))
        #expect(!explanation.plan.isEmpty)
        #expect(explanation.planLines.joined().contains("User"))
    }

    @Test func countHonoursARealmLimit() throws {
        let fixture = try populated()
        let store = fixture.store
        #expect(try store.read { ctx in try ctx.count("User", where: "age > 0 LIMIT(2)") } == 2)
        #expect(try store.read { ctx in try ctx.find("User", limit: 2, offset: 4) }.count == 1)
    }

    @Test func upsertInsertsThenUpdatesByPrimaryKey() throws {
        let fixture = try populated()
        let store = fixture.store
        let inserted = try store.write { ctx in try ctx.upsert("User", ["id": 100, "name": "New", "age": 1]) }
        #expect(inserted["id"] == 100)
        let updated = try store.write { ctx in try ctx.upsert("User", ["id": 100, "name": "New", "age": 2]) }
        #expect(updated["age"] == 2)
        #expect(try store.read { ctx in try ctx.count("User", where: "id == 100") } == 1)
    }
}
