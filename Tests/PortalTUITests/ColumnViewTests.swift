import Foundation
import PortalEngine
import PortalSQLite
import Testing
@testable import PortalTUI

/// A generated table in a temporary file, its rows also kept here: the oracle for `F` and `I`
/// is Swift over these rows, never the engine's SQL.
final class GeneratedTable {
    let directory: URL
    let store: Store
    /// id, k (text or NULL), n (integer or NULL), r (real), d (a DATETIME text or NULL).
    let rows: [(id: Int, k: String?, n: Int?, r: Double, d: String?)]

    init(count: Int = 600, seed: UInt64 = 42) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("columns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try Store(path: directory.appendingPathComponent("t.sqlite").path)
        var state = seed
        func next() -> UInt64 {   // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let words = ["it's", "a \"b\"", "", "x y", "zeta", "Alpha", "alpha", "ünï"]
        rows = (1...count).map { i in
            let k: String? = next() % 9 == 0 ? nil : words[Int(next() % UInt64(words.count)) % max(1, 1 + i % words.count)]
            let n: Int? = next() % 11 == 0 ? nil : Int(next() % 50) + 3
            let r = Double(next() % 1_000_000) / 1000 - 250
            let day = Int(next() % 700)
            let d: String? = next() % 7 == 0 ? nil : Self.date(daysAfter2020: day)
            return (i, k, n, r, d)
        }
        try store.write { context in
            _ = try context.execute("CREATE TABLE T (id INTEGER PRIMARY KEY, k TEXT, n INTEGER, r REAL, d DATETIME)")
            for row in rows {
                _ = try context.execute("INSERT INTO T VALUES (?, ?, ?, ?, ?)", [
                    .integer(Int64(row.id)), row.k.map(Value.text) ?? .null, row.n.map { .integer(Int64($0)) } ?? .null,
                    .real(row.r), row.d.map(Value.text) ?? .null,
                ])
            }
        }
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `2020-01-01 00:00:00` plus `days`, by Foundation's calendar.
    static func date(daysAfter2020 days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let start = calendar.date(from: DateComponents(year: 2020, month: 1, day: 1)) ?? Date()
        let date = calendar.date(byAdding: .day, value: days, to: start) ?? start
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d 00:00:00", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    func model(width: Int = 100, height: Int = 12, filter: String? = nil) throws -> BrowserModel {
        let model = BrowserModel(source: EngineDataSource(store: store), width: width, height: height)
        try model.start(entity: "T", filter: filter)
        model.runPendingCounts()
        return model
    }

    /// Each value with its count, most frequent first, then by value (NULL first; the words
    /// compare by their UTF-8 bytes, as SQLite's BINARY collation does).
    static func frequencies<T: Hashable>(_ values: [T?], less: (T, T) -> Bool) -> [(T?, Int)] {
        var counts: [T?: Int] = [:]
        for v in values { counts[v, default: 0] += 1 }
        return counts.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            switch (a.key, b.key) {
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?): return less(x, y)
            }
        }.map { ($0.key, $0.value) }
    }
}

extension BrowserModel {
    var frequencyView: FrequencyView? { if case .frequency(let v) = mode { return v } else { return nil } }
    var statisticsView: StatisticsView? { if case .statistics(let v) = mode { return v } else { return nil } }
    func moveTo(column name: String) {
        while let c = entity?.columns[safe: cursorColumn], c.name != name, cursorColumn < (entity?.columns.count ?? 0) - 1 {
            press(.right)
        }
    }
}

private func bytesLess(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

/// The eighths of a cell a bar of block characters covers.
private func eighths(_ bar: Substring) -> Int {
    bar.reduce(0) { total, c in
        if c == "█" { return total + 8 }
        if let i = Bar.partials.firstIndex(of: c) { return total + i + 1 }
        return total
    }
}

@Suite struct FrequencyTests {
    /// Walking the whole table with `j` (pages fetched by key as the cursor passes the edge)
    /// meets every value once, in order, with its count.
    @Test(arguments: ["k", "n", "id"])
    func walkingTheTableMeetsEveryValueWithItsCount(column: String) throws {
        let t = try GeneratedTable()
        let model = try t.model()
        model.moveTo(column: column)
        model.press(.character("F"))
        var seen: [(Value, Int)] = []
        var last: FrequencyRow?
        for _ in 0..<(t.rows.count + 5) {
            guard let current = model.frequencyView?.current else { break }
            if current != last { seen.append((current.value, current.count)) }
            last = current
            model.press(.down)
        }
        let expected: [(Value, Int)]
        switch column {
        case "k": expected = GeneratedTable.frequencies(t.rows.map(\.k), less: bytesLess).map { ($0.0.map(Value.text) ?? .null, $0.1) }
        case "n": expected = GeneratedTable.frequencies(t.rows.map(\.n), less: <).map { ($0.0.map { .integer(Int64($0)) } ?? .null, $0.1) }
        default: expected = t.rows.map { (.integer(Int64($0.id)), 1) }
        }
        #expect(seen.map(\.0) == expected.map(\.0))
        #expect(seen.map(\.1) == expected.map(\.1))
        // G and PgUp come back through the same order from the other end.
        model.press(.character("G"))
        #expect(model.frequencyView?.current?.value == expected.last?.0)
        model.press(.character("g"))
        #expect(model.frequencyView?.current?.value == expected.first?.0)
        // The distinct values were counted in the background.
        #expect(model.frequencyView?.values == .exact(expected.count))
    }

    /// Count, share and bar of each line as drawn, against counts computed here; the bar of the
    /// most frequent value fills its width and the others are to its scale within half an eighth.
    @Test func linesShowCountShareAndABarToScale() throws {
        let t = try GeneratedTable()
        let model = try t.model(filter: "n > 10")
        model.moveTo(column: "k")
        model.press(.character("F"))
        let matching = t.rows.filter { ($0.n ?? 0) > 10 }
        let expected = GeneratedTable.frequencies(matching.map(\.k), less: bytesLess)
        let largest = expected[0].1
        var barWidth = 0
        for (i, (_, count)) in expected.prefix(model.pageSize).enumerated() {
            let line = model.screen.line(2 + i)
            // To the nearest tenth of a percent, halves up.
            let tenths = (Double(count) * 1000 / Double(matching.count)).rounded(.toNearestOrAwayFromZero)
            let share = String(format: "%.1f%%", tenths / 10)
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(line.contains(" \(count) ") && line.contains(share), "line \(i): \(line)")
            let bar = fields.last.map { eighths($0) } ?? 0
            if i == 0 { barWidth = bar / 8 }
            let ideal = Double(count) / Double(largest) * Double(barWidth * 8)
            #expect(abs(Double(bar) - ideal) <= 0.5 || (bar == 1 && ideal < 1), "line \(i): \(line)")
        }
        #expect(barWidth >= 10)
    }

    /// Enter filters the grid to the value under the cursor, within the filter F was opened
    /// on; for NULL, to `== nil`. The grid then shows exactly the rows holding it.
    @Test(arguments: 0..<9)
    func enterFiltersTheGridToTheValue(line: Int) throws {
        let t = try GeneratedTable()
        let model = try t.model(filter: "r > 0")
        model.moveTo(column: "k")
        model.press(.character("F"))
        for _ in 0..<line { model.press(.down) }
        let row = try #require(model.frequencyView?.current)
        model.press(.enter)
        #expect(model.frequencyView == nil)
        let expected = t.rows.filter { $0.r > 0 && (row.value.isNull ? $0.k == nil : $0.k.map(Value.text) == row.value) }
        #expect(model.count == .exact(expected.count))
        #expect(model.count == .exact(row.count))
        #expect(model.entity?.columns[model.cursorColumn].name == "k")
        #expect(model.rows.allSatisfy { $0.values[1] == row.value })
        #expect(model.filter.hasPrefix("(r > 0) AND k == "))
    }

    /// A real number prints back exactly: Enter finds the one row holding it.
    @Test func enterOnARealFindsItsRow() throws {
        let t = try GeneratedTable()
        let model = try t.model()
        model.moveTo(column: "r")
        model.press(.character("F"))
        for _ in 0..<5 { model.press(.down) }
        let row = try #require(model.frequencyView?.current)
        guard case .real(let r) = row.value else { return #expect(Bool(false), "not a real: \(row.value)") }
        model.press(.enter)
        #expect(model.count == .exact(t.rows.filter { $0.r == r }.count))
        #expect(model.rows.first?.values[3] == .real(r))
    }

    @Test func theNullValueFiltersWithNil() throws {
        let t = try GeneratedTable()
        let model = try t.model()
        model.moveTo(column: "d")
        model.press(.character("F"))
        // NULL sorts first among equal counts; find it by walking.
        for _ in 0..<800 where model.frequencyView?.current?.value.isNull == false { model.press(.down) }
        #expect(model.frequencyView?.current?.value == .null)
        model.press(.enter)
        #expect(model.count == .exact(t.rows.filter { $0.d == nil }.count))
        #expect(model.validateFilterParses)
    }

    @Test func qAndEscapeReturnToTheGrid() throws {
        let t = try GeneratedTable()
        let model = try t.model()
        for key in [BrowserKey.character("q"), .escape] {
            model.press(.character("F"))
            #expect(model.frequencyView != nil)
            model.press(key)
            #expect(model.frequencyView == nil && !model.isFinished && model.filter.isEmpty)
        }
    }

    /// A change to the database refreshes the table within a tick: at the top, a value that
    /// became the most frequent shows first and sets the bars' scale; scrolled down, the window
    /// keeps its first value and the scale follows the new largest count.
    @Test func aChangeRefreshesTheTable() throws {
        let t = try GeneratedTable()
        let model = try t.model()
        model.moveTo(column: "n")
        model.press(.character("F"))
        let distinct = Set(t.rows.map { $0.n.map { Value.integer(Int64($0)) } ?? .null }).count
        #expect(model.frequencyView?.values == .exact(distinct))
        func insert(_ n: Int64, times: Int) throws {
            try t.store.write { context in
                for _ in 0..<times { _ = try context.execute("INSERT INTO T (n, r) VALUES (?, 0)", [.integer(n)]) }
            }
        }
        try insert(999, times: 100)
        model.press(.tick)
        #expect(model.frequencyView?.rows.first == FrequencyRow(value: .integer(999), count: 100))
        #expect(model.frequencyView?.largest == 100 && model.frequencyView?.values == .exact(distinct + 1))
        #expect(model.count == .exact(t.rows.count + 100))
        model.press(.pageDown)
        let top = try #require(model.frequencyView?.rows.first)
        model.press(.down)
        let current = model.frequencyView?.current
        try insert(1000, times: 200)
        model.press(.tick)
        #expect(model.frequencyView?.rows.first == top && model.frequencyView?.current == current)
        #expect(model.frequencyView?.largest == 200)
        model.press(.character("g"))
        #expect(model.frequencyView?.rows.first == FrequencyRow(value: .integer(1000), count: 200))
    }

    /// At 40×10 every part is on screen: the header, and lines with a count, share and bar.
    @Test func fitsFortyByTen() throws {
        let t = try GeneratedTable()
        let model = try t.model(width: 40, height: 10)
        model.moveTo(column: "n")
        model.press(.character("F"))
        let screen = model.screen
        #expect(screen.line(1).contains("count") && screen.line(1).contains("share"))
        #expect(screen.line(2).contains("%") && screen.line(2).contains("█"))
        #expect(screen.line(9).contains("values"))
        model.press(.resize(width: 40, height: 6))
        #expect((model.frequencyView?.rows.count ?? 0) <= model.pageSize)
    }
}

extension BrowserModel {
    /// The filter Enter made parses back (the data source accepts it).
    var validateFilterParses: Bool { entity.map { source.validate(entity: $0.name, filter: filter) == nil } ?? false }
}

@Suite struct StatisticsTests {
    func statistics(_ t: GeneratedTable, _ column: String, width: Int = 100, height: Int = 12) throws -> (BrowserModel, ColumnSummary) {
        let model = try t.model(width: width, height: height)
        model.moveTo(column: column)
        model.handle(.character("I"))
        #expect(model.statisticsView?.summary == nil)
        #expect(model.screen.text.contains("computing…"))
        model.runPendingCounts()
        return (model, try #require(model.statisticsView?.summary))
    }

    @Test func integersGetFiguresAndWholeNumberBins() throws {
        let t = try GeneratedTable()
        let (_, s) = try statistics(t, "n")
        let values = t.rows.compactMap(\.n)
        #expect(s.kind == .number)
        #expect(s.rows == t.rows.count && s.nulls == t.rows.count - values.count)
        #expect(s.distinct == Set(values).count)
        #expect(s.minimum == .integer(Int64(values.min() ?? 0)) && s.maximum == .integer(Int64(values.max() ?? 0)))
        let mean = Double(values.reduce(0, +)) / Double(values.count)
        #expect(abs((s.average ?? 0) - mean) < 1e-9)
        // Bins of a whole width: the range's values cut into at most 16 bins.
        let low = values.min() ?? 0, span = (values.max() ?? 0) - low + 1
        let width = (span + 15) / 16
        var counts = Array(repeating: 0, count: (span + width - 1) / width)
        for v in values { counts[(v - low) / width] += 1 }
        #expect(s.histogram.map(\.count) == counts)
        #expect((10...20).contains(s.histogram.count))
        #expect(s.histogram.first?.label == "\(low)–\(low + width - 1)")
    }

    @Test func aChangeRecomputesThem() throws {
        let t = try GeneratedTable()
        let (model, s) = try statistics(t, "n")
        try t.store.write { _ = try $0.execute("INSERT INTO T (n, r) VALUES (1000, 0)") }
        model.press(.tick)
        let after = try #require(model.statisticsView?.summary)
        #expect(after.rows == s.rows + 1 && after.maximum == .integer(1000) && after.distinct == s.distinct + 1)
    }

    @Test func realsGetSixteenEqualBins() throws {
        let t = try GeneratedTable()
        let (model, s) = try statistics(t, "r")
        let values = t.rows.map(\.r)
        let low = values.min() ?? 0, high = values.max() ?? 0
        var counts = Array(repeating: 0, count: 16)
        for v in values { counts[min(15, Int((v - low) / ((high - low) / 16)))] += 1 }
        #expect(s.histogram.map(\.count) == counts)
        #expect(s.nulls == 0 && s.minimum == .real(low) && s.maximum == .real(high))
        // Every bin is a line with its count and a bar; the largest bar is the longest.
        let lines = BrowserModel.statisticsLines(try #require(model.statisticsView), width: model.gridWidth)
        let bars = lines.drop { $0 != "histogram" }.dropFirst()
        #expect(bars.count == 16)
        for (line, count) in zip(bars, counts) { #expect(line.contains(" \(count) ")) }
        let longest = bars.map { eighths(Substring($0)) }.max()
        #expect(longest == eighths(Substring(bars[bars.startIndex + (counts.firstIndex(of: counts.max() ?? 0) ?? 0)])))
    }

    @Test func textGetsShortestAndLongest() throws {
        let t = try GeneratedTable()
        let (model, s) = try statistics(t, "k")
        let values = t.rows.compactMap(\.k)
        #expect(s.kind == .text && s.histogram.isEmpty)
        let shorter = { (a: String, b: String) in a.count < b.count || (a.count == b.count && bytesLess(a, b)) }
        #expect(s.shortest == .text(values.min(by: shorter) ?? "-"))
        #expect(s.longest == .text(values.max(by: shorter) ?? "-"))
        #expect(s.nulls == t.rows.count - values.count && s.distinct == Set(values).count)
        #expect(model.screen.text.contains("shortest"))
    }

    @Test func datesGetEarliestLatestAndDayBins() throws {
        let t = try GeneratedTable()
        let (model, s) = try statistics(t, "d", width: 40, height: 10)
        let values = t.rows.compactMap(\.d)
        #expect(s.kind == .date)
        #expect(s.minimum == .text(values.min() ?? "") && s.maximum == .text(values.max() ?? ""))
        #expect(s.histogram.map(\.count).reduce(0, +) == values.count)
        #expect(s.histogram.first?.label == String((values.min() ?? "").prefix(10)))
        let text = model.screen.text
        #expect(text.contains("earliest") && text.contains("statistics of d"))
        // Scrolling reaches the last bin.
        for _ in 0..<30 { model.press(.down) }
        #expect(model.screen.text.contains("█"))
        model.press(.character("q"))
        #expect(model.statisticsView == nil)
    }

    @Test func julianDaysBecomeCalendarDates() {
        #expect(HistogramPlan.date(fromDayNumber: 2_440_587.5, withTime: false) == "1970-01-01")
        #expect(HistogramPlan.date(fromDayNumber: 2_451_544.5 + 59, withTime: true) == "2000-02-29 00:00")
        #expect(HistogramPlan.date(fromDayNumber: 2_459_580.75, withTime: true) == "2022-01-01 06:00")
    }

    @Test func aFailureIsShownNotHidden() throws {
        let model = try makeModel()   // the in-memory source has no statistics
        model.press(.character("I"))
        #expect(model.statisticsView?.failure == "statistics are not available here")
        #expect(model.screen.text.contains("no statistics: statistics are not available here"))
        model.press(.character("F"))   // still in the statistics view: F does nothing there
        model.press(.escape)
        model.press(.character("F"))
        #expect(model.frequencyView == nil && model.status == "frequency tables are not available here")
    }
}

@Suite struct HiddenColumnTests {
    @Test func minusHidesPlusShowsAndTheCursorSkipsHiddenColumns() throws {
        let model = try makeModel()
        let header = { model.screen.line(1) }
        #expect(header().contains("Title"))
        model.press(.right)   // Title
        model.press(.character("-"))
        #expect(!header().contains("Title") && header().contains("AlbumId") && header().contains("ArtistId"))
        #expect(model.entity?.columns[model.cursorColumn].name == "ArtistId")
        model.press(.left)
        #expect(model.cursorColumn == 0)
        model.press(.right)
        #expect(model.entity?.columns[model.cursorColumn].name == "ArtistId")
        model.press(.character("-"))
        model.press(.character("-"))
        #expect(model.statusIsError && model.status == "the last column shown cannot be hidden")
        #expect(header().contains("AlbumId"))
        // Another entity and back: still hidden; + shows them all.
        model.press(.tab, .down, .enter, .tab, .up, .enter)
        #expect(model.entity?.name == "Album" && !header().contains("Title"))
        model.press(.character("+"))
        #expect(header().contains("Title") && header().contains("ArtistId"))
        #expect(model.status == "2 hidden columns shown")
    }
}
