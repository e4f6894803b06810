import Foundation
import PortalEngine

// The frequency table (`F`): value, count, share of the filtered rows, and a bar to the scale
// of the most frequent value.
extension Renderer {
    /// How wide each part of a frequency line is, for an area `width` cells wide.
    struct FrequencyLayout: Equatable {
        var value: Int, count: Int, share: Int, bar: Int
    }

    static func frequencyLayout(_ view: FrequencyView, width: Int) -> FrequencyLayout {
        let widest = view.rows.map { CellText.displayWidth($0.value) }.max() ?? 0
        let value = min(max(widest, CellText.width(of: TerminalText.escaped(view.column)), 4), max(4, width * 2 / 5))
        let count = max(String(view.largest).count, 5)
        let share = 6   // `100.0%`
        return FrequencyLayout(value: value, count: count, share: share, bar: max(0, width - value - count - share - 3))
    }

    /// `12.5%` of `total` (to the nearest tenth, halves up), or `…` while the total is being counted.
    static func share(_ count: Int, of total: RowCount?) -> String {
        guard case .exact(let n)? = total, n > 0 else { return "…" }
        // Tenths of a percent, rounded half up, in integers (String(format:) costs more than
        // the rest of the line).
        let tenths = (count * 2000 + n) / (2 * n)
        return "\(tenths / 10).\(tenths % 10)%"
    }

    static func drawFrequency(_ model: BrowserModel, _ view: FrequencyView, _ screen: inout ScreenBuffer, _ area: Area) {
        let layout = frequencyLayout(view, width: area.width)
        let countX = area.x + layout.value + 1
        let shareX = countX + layout.count + 1
        let barX = shareX + layout.share + 1
        func right(_ text: String, x: Int, width: Int, y: Int, style: CellStyle) {
            screen.put(text, x: x + max(0, width - CellText.width(of: text)), y: y, style: style, maxWidth: width)
        }
        let name = CellText.truncated(TerminalText.escaped(view.column), to: layout.value)
        screen.put(name, x: area.x, y: area.y, style: .header, maxWidth: layout.value)
        right("count", x: countX, width: layout.count, y: area.y, style: .header)
        right("share", x: shareX, width: layout.share, y: area.y, style: .header)
        for (i, row) in view.rows.enumerated() where i < area.height - 1 {
            let y = area.y + 1 + i
            let isCursor = i == view.cursor
            if isCursor { screen.fill(x: area.x, y: y, count: area.width, style: .cursorRow) }
            drawCell(row.value, numeric: isNumber(row.value), x: area.x, y: y, width: layout.value,
                     base: isCursor ? .cursor : nil, &screen)
            let style: CellStyle = isCursor ? .cursorRow : .normal
            right(String(row.count), x: countX, width: layout.count, y: y, style: style)
            right(share(row.count, of: model.count), x: shareX, width: layout.share, y: y, style: style)
            let bar = Bar.parts(row.count, of: view.largest, width: layout.bar)
            screen.repeatCharacter("█", count: bar.full, x: barX, y: y, style: style)
            if let partial = bar.partial { screen.put(String(partial), x: barX + bar.full, y: y, style: style) }
        }
        if view.rows.isEmpty {
            screen.put("(no rows)", x: area.x, y: area.y + 1, style: .special, maxWidth: area.width)
        }
    }
}
