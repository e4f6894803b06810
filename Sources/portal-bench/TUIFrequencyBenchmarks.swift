import CBaseline
import Foundation
import PortalEngine
import PortalSQLite
import PortalTUI

// `F` on the browser's 10,000,000-row table (see `tuiDatabase`), headless (model + renderer):
// the first screen of a column's frequency table against the plain SQL for that page run by the
// SQLite C API in the same run. Column `a` (100,000 values, indexed) is grouped like any
// column; `id` (the integer primary key, ten million values) takes the unique-column path,
// which reads the page from the key without grouping.

func tuiFrequencyBenchmarks() throws -> [Figure] {
    let (width, height) = (160, 40)
    let pageSize = height - 3
    let path = try tuiDatabase()
    let store = try Store(path: path, options: StoreOptions(readOnly: true))
    defer { try? store.close() }
    guard let db = baseline_open(path) else { throw BrowserError("cannot open \(path) for the baseline") }
    defer { baseline_close(db) }
    let session = BrowserModel(source: EngineDataSource(store: store), width: width, height: height, readOnly: true)
    try session.start(entity: "Big", filter: nil)
    func baseline(_ sql: String) -> () -> Void {
        { var checksum: Int64 = 0; _ = baseline_fetch_integers(db, sql, 2, &checksum) }
    }
    /// Back in the grid, on column `index` (id, a, b, c).
    func onColumn(_ index: Int) {
        session.handle(.escape)
        for _ in 0..<4 { session.handle(.left) }
        for _ in 0..<index { session.handle(.right) }
    }
    func open() throws {
        session.handle(.character("F"))
        _ = Renderer.render(session)
        guard case .frequency(let view) = session.mode, view.rows.count == pageSize else {
            throw BrowserError("F did not open a full screen: \(session.status)")
        }
    }

    // Grouping all 10M rows by an index takes most of a second: 7 runs.
    let grouped = "SELECT a, count(*) FROM Big GROUP BY a ORDER BY count(*) DESC, a LIMIT \(pageSize)"
    let (ours, sql) = try pairedMedians(runs: 7, prepare: { onColumn(1) }, ours: open, baseline: baseline(grouped))
    let unique = "SELECT id, 1 FROM Big ORDER BY id LIMIT \(pageSize)"
    let (oursUnique, sqlUnique) = try pairedMedians(runs: 101, prepare: { onColumn(0) }, ours: open, baseline: baseline(unique))
    // What the unique path saves: the same page by grouping, once.
    let groupedID = medianMilliseconds(runs: 1, warmUp: false,
        baseline("SELECT id, count(*) FROM Big GROUP BY id ORDER BY count(*) DESC, id LIMIT \(pageSize)"))
    // Where the unique path's time goes: the data source's page alone, and drawing the screen.
    let source = EngineDataSource(store: store)
    let request = FrequencyRequest(entity: "Big", filter: "", column: "id", anchor: .first, limit: pageSize)
    let sourceOnly = try medianMilliseconds(runs: 101) { _ = try source.frequencies(request) }
    let renderOnly = medianMilliseconds(runs: 101) { _ = Renderer.render(session) }
    func notes(_ ours: Double, _ base: Double, _ sql: String) -> [String: String] {
        ["ours_median_ms": String(format: "%.3f", ours), "c_sql_median_ms": String(format: "%.3f", base),
         "rows": "10000000", "c_sql": sql, "goal": "ratio<=2"]
    }
    var uniqueNotes = notes(oursUnique, sqlUnique, unique)
    uniqueNotes["grouping_sql_ms"] = String(format: "%.1f", groupedID)
    uniqueNotes["source_ms"] = String(format: "%.3f", sourceOnly)
    uniqueNotes["render_ms"] = String(format: "%.3f", renderOnly)
    uniqueNotes["goal"] = "none (the unique-column path)"
    return [
        Figure(name: "tui.frequency.open", oursMilliseconds: ours, baselineMilliseconds: sql, notes: notes(ours, sql, grouped)),
        Figure(name: "tui.frequency.open.unique", oursMilliseconds: oursUnique, baselineMilliseconds: sqlUnique,
               notes: uniqueNotes),
    ]
}
