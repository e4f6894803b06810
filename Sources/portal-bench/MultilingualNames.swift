import CSQLite
import Foundation
import PortalEngine

// The multilingual data of the shell.filter.casefold.* figures: names from many languages, about
// 89 % of them with a letter that is not ASCII (accents, ß, ł, ı, Vietnamese, Greek, Cyrillic,
// CJK, Hangul), as a table of people would hold them.

private let firstNames = [
    "José", "Anna", "Łukasz", "Zoë", "François", "Jürgen", "Søren", "Åsa", "Ömer", "Yiğit", "Văn Thành", "Thị Ánh",
    "Αναστασία", "Γιώργος", "Дмитрий", "Анна", "Ольга", "Ёсиф", "İlker", "Zdeněk", "Małgorzata", "Björk", "Núria", "João",
    "Ingrid", "Mary", "John", "Anna-Lena", "Ægir", "Þóra", "美咲", "太郎", "민준", "Chloé", "Renée", "Mateus", "Ärne",
    "Maria", "Peter", "Ahmet", "Olga", "Hana", "Ánh", "Émile", "Ludmila", "Stéphane", "Dagný", "Ğülşen", "Ιωάννης", "Sven",
    "Laura", "David", "Sofia", "Lucas", "Emma", "Noah",
]
private let surnames = [
    "García", "Müller", "Ångström", "Dvořák", "NGUYỄN", "Yılmaz", "Kowalski", "Wiśniewski", "Straße", "Øre", "Иванов",
    "Смирнова", "Παπαδόπουλος", "Smith", "Johansson", "Lindqvist", "Çelik", "Şahin", "Novák", "Horváth", "Fernández",
    "Gonçalves", "O'Brien", "田中", "김", "Søndergaard", "Đurić", "Kovačević", "Trần", "Lê", "Phạm", "Jónsdóttir",
    "Schäfer", "Weiß", "Brontë", "Nuñez", "Åberg", "Öztürk", "Καραγιάννης", "Ковалёв", "Anderson", "Berg", "Lund", "Kim",
    "Łęcka", "Ružička", "Hämäläinen", "Ólafsson", "Dąbrowski", "Jensen", "Brown", "Miller", "Rossi", "Silva", "Larsen",
    "Hansen", "Nielsen",
]

/// A table T (id, name) of `rows` multilingual names, generated once and cached under
/// .build/bench-data.
func multilingualNamesDatabase(rows: Int = 1_000_000) throws -> String {
    let path = benchDirectory().appendingPathComponent("shell-names-\(rows).sqlite").path
    if FileManager.default.fileExists(atPath: path) { return path }
    let temporary = path + ".tmp"
    try? FileManager.default.removeItem(atPath: temporary)
    var db: OpaquePointer?
    guard sqlite3_open(temporary, &db) == SQLITE_OK, let db else { throw MultilingualDataError("cannot create \(temporary)") }
    defer { sqlite3_close(db) }
    let setup = "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT NOT NULL); BEGIN"
    guard sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK else { throw MultilingualDataError("setup failed") }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "INSERT INTO T VALUES (?, ?)", -1, &statement, nil) == SQLITE_OK else {
        throw MultilingualDataError("prepare failed")
    }
    defer { sqlite3_finalize(statement) }
    var state: UInt64 = 0x1234_5678
    for id in 1...rows {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let name = firstNames[Int(state >> 33) % firstNames.count] + " " + surnames[Int(state >> 45) % surnames.count]
        sqlite3_bind_int64(statement, 1, Int64(id))
        sqlite3_bind_text(statement, 2, name, -1, portal_sqlite_transient())
        guard sqlite3_step(statement) == SQLITE_DONE else { throw MultilingualDataError("insert failed") }
        sqlite3_reset(statement)
    }
    guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw MultilingualDataError("commit failed") }
    try FileManager.default.moveItem(atPath: temporary, toPath: path)
    return path
}

/// The shell.filter.casefold.* figures on the multilingual names: each string test with `[c]`,
/// `[d]` and `[cd]` against sqlite3's `LIKE` doing the nearest ASCII work on the same column, and
/// MATCHES against its REGEXP. (name, portal-shell command, sqlite3 SQL, goal)
let multilingualFilters: [(String, String, String, String)] = {
    var filters: [(String, String, String, String)] = []
    // The needle for [c], [d], [cd], and sqlite3's LIKE pattern.
    let tests: [(String, String, [String], String)] = [
        ("beginswith", "BEGINSWITH", ["ANNA", "Anna", "ANNA"], "anna%"),
        ("contains", "CONTAINS", ["STRÖM", "strom", "ANGSTROM"], "%strom%"),
        ("endswith", "ENDSWITH", ["SON", "son", "SON"], "%son"),
        ("like", "LIKE", ["*A?A *", "*a?a *", "*A?A *"], "%a_a %"),
        ("equals", "==", ["ANNA SMITH", "Anna Smith", "ANNA SMITH"], "anna smith"),
    ]
    for (name, op, needles, pattern) in tests {
        for (option, needle) in zip(["c", "d", "cd"], needles) {
            filters.append(("shell.filter.casefold.\(name).\(option)", #"count T where name \#(op)[\#(option)] "\#(needle)""#,
                            "SELECT count(*) FROM T WHERE name LIKE '\(pattern)'", "ratio<=1.5"))
        }
    }
    filters.append(("shell.filter.matches.multilingual", #"count T where name MATCHES "J.s. .*""#,
                    "SELECT count(*) FROM T WHERE name REGEXP '^J.s. .*$'", "ratio<=1.3"))
    filters.append(("shell.filter.matches.multilingual.c", #"count T where name MATCHES[c] "j.s. .*""#,
                    "SELECT count(*) FROM T WHERE lower(name) REGEXP '^j.s. .*$'", "ratio<=1.3"))
    return filters
}()

private struct MultilingualDataError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
