import CBaseline
import Foundation
import PortalEngine
import PortalSQLite
import PortalTUI

// The browser's figures, headless (model + renderer, no ncurses) on a generated table of
// 10,000,000 rows, each against the plain SQL for the same page(s) run by the SQLite C API
// (CBaseline) in the same run. Medians of 101 runs (21 for the 100 PgDn), each run of ours
// followed by one of the baseline, after a warm-up; wall-clock.

private let rowCount = 10_000_000
private let width = BrowserSteps.width
private let height = BrowserSteps.height
private let pageSize = BrowserSteps.pageRows

func tuiBenchmarks() throws -> [Figure] {
    let path = try tuiDatabase()
    // Run first, before anything else grows the process.
    let memory = wanted("tui.memory") ? try pagingMemory(path) : nil
    let store = try Store(path: path, options: StoreOptions(readOnly: true))
    defer { try? store.close() }
    guard let db = baseline_open(path) else { throw BrowserError("cannot open \(path) for the baseline") }
    defer { baseline_close(db) }
    let columns = "id, a, b, c"
    let firstPage = "SELECT \(columns) FROM Big ORDER BY id LIMIT \(pageSize)"
    let lastPage = "SELECT \(columns) FROM Big ORDER BY id DESC LIMIT \(pageSize)"
    let filtered = "SELECT \(columns) FROM Big WHERE a = 4242 ORDER BY id LIMIT \(pageSize)"
    let nextPage = "SELECT \(columns) FROM Big WHERE id > 500 ORDER BY id LIMIT \(pageSize)"

    // Each of these takes tens of microseconds: 101 runs, alternating with the baseline.
    let runs = 101
    func baseline(_ sql: String) -> () -> Void {
        { var checksum: Int64 = 0; _ = baseline_fetch_integers(db, sql, 4, &checksum) }
    }

    let steps = try BrowserSteps(store: store)
    let session = steps.session
    // Where a screen's time goes: drawing it, and the same SQL through the engine's raw query.
    let renderOnly = medianMilliseconds(runs: runs) { _ = Renderer.render(session) }
    func engineSQL(_ sql: String) throws -> Double {
        try medianMilliseconds(runs: runs) { _ = try store.read { try $0.query(sql) } }
    }
    func note(_ ours: Double, _ base: Double, engine: Double, screens: Int = 1) -> [String: String] {
        ["ours_median_ms": String(format: "%.3f", ours), "c_sql_median_ms": String(format: "%.3f", base),
         "engine_sql_ms": String(format: "%.3f", engine), "render_ms": String(format: "%.3f", renderOnly * Double(screens)),
         "rows": String(rowCount), "goal": "ratio<=2"]
    }
    // Only the figures `--only` asks for are timed (a callgrind run of one counts just its own work).
    var figures: [Figure] = []
    if wanted("tui.open") {
        let (open, openSQL) = try pairedMedians(runs: runs, ours: steps.open, baseline: baseline(firstPage))
        figures.append(Figure(name: "tui.open", oursMilliseconds: open, baselineMilliseconds: openSQL,
                              notes: note(open, openSQL, engine: try engineSQL(firstPage))))
    }
    if wanted("tui.end") {
        let (end, endSQL) = try pairedMedians(runs: runs, prepare: steps.home, ours: steps.end, baseline: baseline(lastPage))
        figures.append(Figure(name: "tui.end", oursMilliseconds: end, baselineMilliseconds: endSQL,
                              notes: note(end, endSQL, engine: try engineSQL(lastPage))))
    }
    // tui.pagedown: 100 PgDn from the top, each rendered, against the same 100 keyset queries.
    if wanted("tui.pagedown") {
        let (pageDown, pageDownSQL) = try pairedMedians(runs: 21, prepare: steps.home, ours: steps.pageDown, baseline: {
            var checksum: Int64 = 0
            for page in 0..<100 {
                let last = (page + 1) * pageSize
                _ = baseline_fetch_integers(db, "SELECT \(columns) FROM Big WHERE id > \(last) ORDER BY id LIMIT \(pageSize)", 4,
                                            &checksum)
            }
        })
        figures.append(Figure(name: "tui.pagedown", oursMilliseconds: pageDown, baselineMilliseconds: pageDownSQL,
                              notes: note(pageDown, pageDownSQL, engine: try engineSQL(nextPage) * 100, screens: 100)))
    }
    if wanted("tui.filter.keystroke") {   // the keystroke's figure is against the filter's baseline
        // tui.filter: `a == 4242` applied (Enter on the filter line) and the first screen rendered.
        // Typing it (each keystroke checks the predicate, compiling it) is set up untimed and
        // measured on its own below, per keystroke.
        let (filter, filterSQL) = try pairedMedians(runs: runs, prepare: { steps.typeFilter("a == 4242") },
                                                    ours: steps.applyFilter, baseline: baseline(filtered))
        if wanted("tui.filter") {
            figures.append(Figure(name: "tui.filter", oursMilliseconds: filter, baselineMilliseconds: filterSQL,
                                  notes: note(filter, filterSQL, engine: try engineSQL(filtered))))
        }
        // A new value each run (`a == 1111`, `a == 2222`, …) so that its four prefixes with digits
        // were never checked before; `a`, `a `, `a =`, `a ==`, `a == ` are, as after the first filter.
        var typed = 1111
        let typing = medianMilliseconds(runs: 7) {
            session.handle(.character("/"))
            for c in "a == \(typed)" { session.handle(.character(c)) }
            session.handle(.escape)
            typed += 1111
        } / 11   // `/`, nine characters and Escape
        figures.append(Figure(name: "tui.filter.keystroke", oursMilliseconds: typing, baselineMilliseconds: filterSQL,
                              notes: ["ours_median_ms": String(format: "%.3f", typing),
                                      "c_sql_median_ms": String(format: "%.3f", filterSQL),
                                      "what": "one keystroke of `/a == NNNN` on the filter line, the predicate checked as typed",
                                      "goal": "none (feedback as you type)"]))
    }
    return figures + (memory.map { [$0] } ?? [])
}

/// The 10,000,000-row table, generated once (one prepared INSERT … SELECT in one transaction)
/// and cached under .build/bench-data.
func tuiDatabase() throws -> String {
    let path = benchDirectory().appendingPathComponent("tui-10m.sqlite").path
    if FileManager.default.fileExists(atPath: path) { return path }
    let building = path + ".building"
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building + suffix) }
    let store = try Store(path: building)
    try store.write { context in
        _ = try context.execute("CREATE TABLE Big (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER, c INTEGER)")
        _ = try context.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO Big SELECT i, i % 100000, i * 7 % 1000003, i % 13 FROM n
            """, [.integer(Int64(rowCount))])
        _ = try context.execute("CREATE INDEX Big_a ON Big(a)")
    }
    try store.close()
    try FileManager.default.moveItem(atPath: building, toPath: path)
    return path
}

/// Peak memory of a session paging through 100,000 rows (run first, before anything else grows
/// the process): the model holds one screen of rows whatever the table's size.
private func pagingMemory(_ path: String) throws -> Figure {
    let before = peakResidentMegabytes()
    let store = try Store(path: path, options: StoreOptions(readOnly: true))
    defer { try? store.close() }
    let model = BrowserModel(source: EngineDataSource(store: store), width: width, height: height, readOnly: true)
    try model.start(entity: "Big", filter: nil)
    var seen = model.rows.count
    let start = DispatchTime.now().uptimeNanoseconds
    while seen < 100_000 {
        model.handle(.pageDown)
        _ = Renderer.render(model)
        seen += model.rows.count
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    let peak = peakResidentMegabytes()
    return Figure(name: "tui.memory.page100k", oursMilliseconds: elapsed, baselineMilliseconds: elapsed,
                  notes: ["peak_rss_mb": String(format: "%.1f", peak), "rss_before_session_mb": String(format: "%.1f", before),
                          "rows_paged": String(seen), "goal": "peak<50MB"])
}

private func peakResidentMegabytes() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}
