import Foundation
import PortalEngine

/// The statistics `I` shows of a column, computed in the background.
public struct StatisticsView: Sendable, Hashable {
    /// The attribute's name.
    public var column: String
    /// Nil while computing.
    public var summary: ColumnSummary?
    /// Why there are none (an error, or Ctrl-C).
    public var failure: String?
    public var scroll = 0

    public init(column: String) { self.column = column }
}

// Column statistics (`I`) and hiding columns (`-`, `+`).
extension BrowserModel {
    func openStatistics() {
        guard let entity, let column = entity.columns[safe: cursorColumn] else { return }
        mode = .statistics(StatisticsView(column: column.name))
        schedule(CountJob(entity: entity.name, filter: filter, kind: .statistics(column: column.name)))
    }

    func handleStatistics(_ key: BrowserKey, _ view: StatisticsView) {
        var view = view
        let last = max(0, Self.statisticsLines(view, width: gridWidth).count - 1)
        switch key {
        case .down, .character("j"), .wheelDown: view.scroll = min(view.scroll + 1, last)
        case .up, .character("k"), .wheelUp: view.scroll = max(0, view.scroll - 1)
        case .pageDown, .character(" "): view.scroll = min(view.scroll + pageSize, last)
        case .pageUp: view.scroll = max(0, view.scroll - pageSize)
        case .escape, .character("q"):
            mode = .browse
            return
        default: break
        }
        mode = .statistics(view)
    }

    /// The lines of the statistics screen, `width` cells wide: one figure a line, then the
    /// histogram with a bar per bin.
    public static func statisticsLines(_ view: StatisticsView, width: Int) -> [String] {
        guard let s = view.summary else {
            return [view.failure.map { "no statistics: \($0)" } ?? "computing…  (Ctrl-C cancels)"]
        }
        func shown(_ value: Value) -> String { CellText.truncated(CellText.display(value).text, to: max(4, width - 11)) }
        var figures: [(String, String)] = [("rows", "\(s.rows)"), ("NULLs", "\(s.nulls)"), ("distinct", "\(s.distinct)")]
        let date = s.kind == .date
        if s.rows > s.nulls {
            figures += [(date ? "earliest" : "min", shown(s.minimum)), (date ? "latest" : "max", shown(s.maximum))]
        }
        if let average = s.average { figures.append(("average", HistogramPlan.number(average))) }
        if let shortest = s.shortest { figures.append(("shortest", shown(shortest))) }
        if let longest = s.longest { figures.append(("longest", shown(longest))) }
        var lines = figures.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + $0.1 }
        guard !s.histogram.isEmpty else { return lines }
        lines.append("histogram")
        let labelWidth = min(s.histogram.map { CellText.width(of: $0.label) }.max() ?? 0, max(4, width / 3))
        let largest = s.histogram.map(\.count).max() ?? 0
        let countWidth = String(largest).count
        let barWidth = max(1, width - labelWidth - countWidth - 3)
        for bin in s.histogram {
            let label = CellText.truncated(bin.label, to: labelWidth)
            let count = String(bin.count)
            lines.append(label + String(repeating: " ", count: labelWidth - CellText.width(of: label)) + " "
                         + String(repeating: " ", count: countWidth - count.count) + count + " "
                         + Bar.text(bin.count, of: largest, width: barWidth))
        }
        return lines
    }

    // MARK: Hiding columns

    /// The current entity's hidden columns.
    public var hidden: Set<String> {
        // Nothing hidden (the usual case): no entity to copy, no name to look up.
        guard !hiddenColumns.isEmpty else { return [] }
        return entity.map { hiddenColumns[$0.name] ?? [] } ?? []
    }

    func isHidden(_ column: Int) -> Bool {
        guard !hiddenColumns.isEmpty, let name = entity?.columns[safe: column]?.name else { return false }
        return hidden.contains(name)
    }

    /// `-`: hides the cursor's column (never the last one shown); the cursor moves to the next.
    func hideColumn() {
        guard let entity, let column = entity.columns[safe: cursorColumn] else { return }
        guard entity.columns.count - hidden.count > 1 else {
            return setStatus("the last column shown cannot be hidden", error: true)
        }
        hiddenColumns[entity.name, default: []].insert(column.name)
        setStatus("\(column.name) hidden (+ shows every column)", error: false)
        clampColumn()
    }

    /// `+`: every hidden column of the entity is shown again.
    func showColumns() {
        guard let entity else { return }
        let n = hidden.count
        hiddenColumns[entity.name] = nil
        setStatus(n == 0 ? "no column is hidden" : "\(n) hidden column\(n == 1 ? "" : "s") shown", error: false)
        clampColumn()
    }
}
