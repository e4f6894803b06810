import Testing
@testable import PortalPostgres

/// SQLite's SQL with its names as PostgreSQL must see them: a bare name of a table or column,
/// in any case, quoted as it is spelled; strings, quoted names, comments and calls untouched.
@Suite struct CopyNamesTests {
    @Test func bareNamesAreQuotedAsSpelled() {
        let names = ["Track", "Name", "Milliseconds", "count", "id"]
        #expect(CopyNames.quoted(in: "CREATE VIEW long AS SELECT name, milliseconds FROM track WHERE Milliseconds > 1",
                                 names: names)
                == "CREATE VIEW long AS SELECT \"Name\", \"Milliseconds\" FROM \"Track\" WHERE \"Milliseconds\" > 1")
        // Strings, quoted names, comments, calls and lower-case names stay; [x] and `x` become "x".
        #expect(CopyNames.quoted(in: "SELECT 'name', \"name\", count(*), id -- track\nFROM [Track] JOIN `x y` /* Name */",
                                 names: names)
                == "SELECT 'name', \"name\", count(*), id -- track\nFROM \"Track\" JOIN \"x y\" /* Name */")
        // Two names that differ only in case: left alone.
        #expect(CopyNames.quoted(in: "CHECK (a > 0)", names: ["A", "a"]) == "CHECK (a > 0)")
        #expect(CopyNames.quoted(in: "CHECK (Name2 <> 'it''s' AND name <> '')", names: names)
                == "CHECK (Name2 <> 'it''s' AND \"Name\" <> '')")
    }
}
