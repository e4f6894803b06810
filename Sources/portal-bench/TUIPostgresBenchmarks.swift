import Foundation
import PortalEngine
import PortalSQLite
import PortalPostgres
import PortalTUI

// `tui.pg.*`: the browser on a 10,000,000-row PostgreSQL table, headless (model +
// renderer) over `Store(url:)`, each figure against the plain SQL for the same page(s) sent by
// libpq (`PQexec`, every row of the result received) on a connection of its own, in the same
// run. Only with a server (`make bench` starts one); the table is made afresh in it each run.

func tuiPostgresBenchmarks() throws -> [Figure] {
    guard postgresHost(for: "tui.pg") != nil else { return [] }
    let conninfo = try postgresTUIDatabase()
    let store = try Store(url: conninfo, options: StoreOptions(readOnly: true))
    defer { try? store.close() }
    let plain = try PostgresConnection(conninfo, readOnly: true)
    let columns = "id, a, b, c"
    let pageSize = BrowserSteps.pageRows
    func baseline(_ sql: String) -> () throws -> Void { { try plain.execute(sql) } }
    let firstPage = "SELECT \(columns) FROM \"Big\" ORDER BY id LIMIT \(pageSize)"
    let lastPage = "SELECT \(columns) FROM \"Big\" ORDER BY id DESC LIMIT \(pageSize)"
    let filtered = "SELECT \(columns) FROM \"Big\" WHERE a = 4242 ORDER BY id LIMIT \(pageSize)"
    let runs = 51

    let steps = try BrowserSteps(store: store)
    let (open, openSQL) = try pairedMedians(runs: runs, ours: steps.open, baseline: baseline(firstPage))
    let (end, endSQL) = try pairedMedians(runs: runs, prepare: steps.home, ours: steps.end, baseline: baseline(lastPage))
    let (pageDown, pageDownSQL) = try pairedMedians(runs: 31, prepare: steps.home, ours: steps.pageDown, baseline: {
        for page in 0..<100 {
            try plain.execute("SELECT \(columns) FROM \"Big\" WHERE id > \((page + 1) * pageSize) ORDER BY id LIMIT \(pageSize)")
        }
    })
    // The screen must show what the figure claims: a failed page would be fast and empty.
    let shown = steps.session.rows
    guard shown.count == pageSize, shown.first?.values.first == .integer(Int64(100 * pageSize + 1)), !steps.session.statusIsError else {
        throw BrowserError("the 101st page on PostgreSQL showed \(shown.count) rows from \(shown.first?.values.first ?? .null): \(steps.session.status)")
    }
    let (filter, filterSQL) = try pairedMedians(runs: runs, prepare: { steps.typeFilter("a == 4242") }, ours: steps.applyFilter,
                                                baseline: baseline(filtered))
    let session = steps.session
    guard session.rows.count == pageSize, !session.statusIsError else {
        throw BrowserError("the filtered page on PostgreSQL showed \(session.rows.count) rows: \(session.status)")
    }

    func note(_ ours: Double, _ base: Double) -> [String: String] {
        ["ours_median_ms": String(format: "%.3f", ours), "libpq_sql_median_ms": String(format: "%.3f", base),
         "rows": "10000000", "goal": "ratio<=2"]
    }
    return [
        Figure(name: "tui.pg.open", oursMilliseconds: open, baselineMilliseconds: openSQL, notes: note(open, openSQL)),
        Figure(name: "tui.pg.end", oursMilliseconds: end, baselineMilliseconds: endSQL, notes: note(end, endSQL)),
        Figure(name: "tui.pg.pagedown", oursMilliseconds: pageDown, baselineMilliseconds: pageDownSQL,
               notes: note(pageDown, pageDownSQL)),
        Figure(name: "tui.pg.filter", oursMilliseconds: filter, baselineMilliseconds: filterSQL, notes: note(filter, filterSQL)),
    ]
}

/// The table of `tuiDatabase`, made in a database of its own on the server: ten million rows by
/// one `INSERT … SELECT` from `generate_series`, the key and the index on `a` built after, then
/// analyzed. Kept while the server lives (the same run's figures share it).
private func postgresTUIDatabase() throws -> String {
    let name = "portal_bench_tui"
    let admin = try PostgresConnection("dbname=postgres")
    if try admin.scalar("SELECT count(*) FROM pg_database WHERE datname = '\(name)'") == .integer(1) {
        return "dbname=\(name)"
    }
    try admin.execute("CREATE DATABASE \(name)")
    let db = try PostgresConnection("dbname=\(name)")
    try db.execute("""
        CREATE TABLE "Big" (id bigint NOT NULL, a bigint NOT NULL, b bigint, c bigint);
        INSERT INTO "Big" SELECT i, i % 100000, i * 7 % 1000003, i % 13 FROM generate_series(1, 10000000) AS i;
        ALTER TABLE "Big" ADD PRIMARY KEY (id);
        CREATE INDEX "Big_a" ON "Big"(a);
        """)
    try db.execute("VACUUM ANALYZE \"Big\"")   // alone: VACUUM runs in no transaction
    return "dbname=\(name)"
}
