import PortalEngine

/// Draws the model into a screen buffer. Pure: the same model always gives the same screen.
public enum Renderer {
    public static func render(_ model: BrowserModel) -> ScreenBuffer {
        var screen = ScreenBuffer(width: model.width, height: model.height)
        guard model.height >= 3, model.width >= 10 else {
            screen.put("too small", x: 0, y: 0, style: .error)
            return screen
        }
        drawTitle(model, &screen)
        let left = model.paneWidth
        if left > 0 { drawEntityList(model, &screen, width: left) }
        let area = Area(x: left, y: 1, width: model.gridWidth, height: model.height - 2)
        switch model.mode {
        case .record(let selected): drawRecord(model, &screen, area, selected: selected)
        case .editCell(_, _, _, true):
            if case .editCell(let column, _, _, _) = model.mode { drawRecord(model, &screen, area, selected: column) }
        case .add(let form): drawAddForm(model, &screen, area, form)
        case .help(let scroll): drawLines(BrowserModel.helpLines, title: "keys", &screen, area, scroll: scroll)
        case .output(let lines, let scroll): drawLines(lines.map(TerminalText.escaped), title: "output", &screen, area, scroll: scroll)
        case .frequency(let view): drawFrequency(model, view, &screen, area)
        case .statistics(let view):
            drawLines(BrowserModel.statisticsLines(view, width: area.width),
                      title: "statistics of " + TerminalText.escaped(view.column), &screen, area, scroll: view.scroll)
        default: drawGrid(model, &screen, area)
        }
        drawBottom(model, &screen)
        return screen
    }

    struct Area {
        var x: Int, y: Int, width: Int, height: Int
    }

    // MARK: Title and status

    static func drawTitle(_ model: BrowserModel, _ screen: inout ScreenBuffer) {
        screen.fill(x: 0, y: 0, count: model.width, style: .title)
        guard let entity = model.entity else {
            screen.put(" portal-shell", x: 0, y: 0, style: .title)
            return
        }
        // Part after part, each from where the last ended (no title text to build): every part
        // starts with ASCII, so none has a mark to join to the part before.
        var x = 0
        func add(_ part: String) { x += screen.put(part, x: x, y: 0, style: .title, maxWidth: model.width - x) }
        add(" " + TerminalText.escaped(entity.name))
        if let count = model.count {
            add("  \(count.label) rows")
            if case .atLeast = count, model.isCounting { add(", counting…") }
        } else if model.isCounting {
            add("  counting…")
        }
        if let sort = model.sort { add("  sort \(TerminalText.escaped(sort.column)) \(sort.direction == .ascending ? "↑" : "↓")") }
        if !model.filter.isEmpty { add("  where \(TerminalText.escaped(model.filter))") }
        if model.readOnly || entity.isReadOnly { add("  [read-only]") }
    }

    static func drawBottom(_ model: BrowserModel, _ screen: inout ScreenBuffer) {
        let y = model.height - 1
        screen.fill(x: 0, y: y, count: model.width, style: .status)
        switch model.mode {
        case .filter(let editor, let error):
            if !model.status.isEmpty && !model.statusIsError {
                // Tab's candidates.
                screen.fill(x: 0, y: y - 1, count: model.width, style: .status)
                screen.put(" " + TerminalText.escaped(model.status), x: 0, y: y - 1, style: .status, maxWidth: model.width)
            } else if let error {
                screen.fill(x: 0, y: y - 1, count: model.width, style: .error)
                screen.put(" " + TerminalText.escaped(error.message), x: 0, y: y - 1, style: .error, maxWidth: model.width)
            }
            drawEditor(editor, prompt: "/", errorRange: error?.range, &screen, y: y)
            return
        case .editCell(let column, let editor, let isNull, _):
            let name = TerminalText.escaped(model.entity?.columns[safe: column]?.name ?? "")
            if isNull {
                screen.put("\(name): NULL  (type to replace, Enter saves, Esc cancels)", x: 0, y: y, style: .special,
                           maxWidth: model.width)
                screen.cursor = (x: min(CellText.width(of: name) + 2, model.width - 1), y: y)
            } else {
                drawEditor(editor, prompt: "\(name): ", errorRange: nil, &screen, y: y)
            }
            return
        case .command(let editor):
            drawEditor(editor, prompt: ":", errorRange: nil, &screen, y: y)
            return
        case .confirmDelete:
            let name = TerminalText.escaped(model.entity?.name ?? "")
            let id = model.currentRow?.id.map { CellText.display($0).text }.joined(separator: ", ") ?? ""
            screen.put("delete \(name) \(id)? y/n", x: 0, y: y, style: .error, maxWidth: model.width)
            return
        case .add:
            if model.status.isEmpty {
                screen.put("Enter create · Esc cancel · ↑↓ field · ^N NULL · ^X default", x: 0, y: y, style: .status,
                           maxWidth: model.width)
                return
            }
        default:
            break
        }
        if case .frequency(let view) = model.mode, model.status.isEmpty, model.busyText == nil {
            let values = view.values.map { "\($0.label) values" } ?? "counting values…"
            screen.put("\(values)  Enter filter  q back", x: 0, y: y, style: .status, maxWidth: model.width)
        } else if case .statistics(let view) = model.mode, model.status.isEmpty, model.busyText == nil {
            let hint = view.summary == nil && view.failure == nil ? "Ctrl-C cancels  q back" : "j k scroll  q back"
            screen.put(hint, x: 0, y: y, style: .status, maxWidth: model.width)
        } else if let busy = model.busyText {
            screen.put(busy, x: 0, y: y, style: .special, maxWidth: model.width)
        } else if !model.status.isEmpty {
            screen.put(TerminalText.escaped(model.status), x: 0, y: y, style: model.statusIsError ? .error : .status,
                       maxWidth: model.width)
        } else {
            screen.put("? help  / filter  Tab entities  q quit", x: 0, y: y, style: .status, maxWidth: model.width)
        }
    }

    /// A one-line editor with its caret kept on screen; `errorRange` (characters) is marked.
    static func drawEditor(_ editor: LineEditor, prompt: String, errorRange: Range<Int>?, _ screen: inout ScreenBuffer, y: Int) {
        let promptWidth = screen.put(prompt, x: 0, y: y, style: .status, maxWidth: screen.width / 2)
        let available = max(1, screen.width - promptWidth - 1)
        let chars = editor.characters
        // Scroll so that the caret is visible.
        var start = 0
        var widthBeforeCaret = chars[0..<editor.caret].reduce(0) { $0 + CellText.width(of: TerminalText.escaped(String($1))) }
        while widthBeforeCaret > available, start < editor.caret {
            widthBeforeCaret -= CellText.width(of: TerminalText.escaped(String(chars[start])))
            start += 1
        }
        var x = promptWidth
        for i in start..<chars.count {
            let shown = TerminalText.escaped(String(chars[i]))
            let marked = errorRange?.contains(i) ?? false
            let used = screen.put(shown, x: x, y: y, style: marked ? .error : .normal, maxWidth: screen.width - x)
            if used == 0 { break }
            x += used
        }
        if let range = errorRange, range.lowerBound >= chars.count, x < screen.width {
            screen.put(" ", x: x, y: y, style: .error)
        }
        screen.cursor = (x: min(promptWidth + widthBeforeCaret, screen.width - 1), y: y)
    }

    // MARK: Entity list

    static func drawEntityList(_ model: BrowserModel, _ screen: inout ScreenBuffer, width: Int) {
        let top = 1
        let height = model.height - 2
        let first = max(0, model.entitySelection - height + 1)
        screen.fill(x: 0, y: top, count: width, lines: height, style: .pane)
        for (row, index) in (first..<model.entities.count).enumerated() where row < height {
            let entity = model.entities[index]
            let selected = index == model.entitySelection && model.focus == .entities
            let style: CellStyle = selected ? .paneSelected : .pane
            let marker = index == model.entityIndex ? "▸" : " "
            let countText = model.entityCounts[entity.name]?.label ?? "…"
            let countWidth = CellText.width(of: countText)
            screen.fill(x: 0, y: top + row, count: width - 1, style: style)
            screen.put(marker + TerminalText.escaped(entity.name), x: 0, y: top + row, style: style,
                       maxWidth: max(1, width - countWidth - 2))
            if width - countWidth - 1 > 0 {
                screen.put(countText, x: width - countWidth - 1, y: top + row, style: style)
            }
        }
    }

    // MARK: Grid

    static func drawGrid(_ model: BrowserModel, _ screen: inout ScreenBuffer, _ area: Area) {
        guard let entity = model.entity else { return }
        let widths = model.columnWidths()
        // The model's properties read once, not once per cell.
        let rows = model.rows
        let sort = model.sort
        let cursorRow = model.focus == .grid ? model.cursorRow : -1
        let cursorColumn = model.cursorColumn
        let hidden = model.hidden
        var x = area.x
        var column = model.columnOffset
        while column < entity.columns.count, x < area.x + area.width {
            if hidden.contains(entity.columns[column].name) {
                column += 1
                continue
            }
            let w = min(widths[column], area.x + area.width - x)
            let info = entity.columns[column]
            var name = TerminalText.escaped(info.name)
            if sort?.column == info.name { name += sort?.direction == .ascending ? "↑" : "↓" }
            screen.put(CellText.truncated(name, to: w), x: x, y: area.y, style: .header, maxWidth: w)
            for i in 0..<min(rows.count, area.height - 1) {
                let value = rows[i].value(at: column) ?? .null
                let isCursorRow = i == cursorRow
                let isCursor = isCursorRow && column == cursorColumn
                drawCell(value, numeric: isNumber(value), x: x, y: area.y + 1 + i, width: w,
                         base: isCursor ? .cursor : (isCursorRow ? .cursorRow : nil), &screen)
            }
            x += w + 1
            column += 1
        }
        if model.rows.isEmpty {
            let message = model.filter.isEmpty ? "(no rows)" : "(no rows match the filter)"
            screen.put(message, x: area.x, y: area.y + 1, style: .special, maxWidth: area.width)
        }
        if model.focus == .grid, model.cursorRow < model.rows.count {
            screen.cursor = nil
        }
    }

    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .real: return true
        default: return false
        }
    }

    /// One cell: numbers right-aligned, stand-ins (NULL, empty, blob) in their own style.
    static func drawCell(_ value: Value, numeric: Bool, x: Int, y: Int, width: Int, base: CellStyle?, _ screen: inout ScreenBuffer) {
        if base != nil { screen.fill(x: x, y: y, count: width, style: base ?? .normal) }
        // Integers, the common case, go straight into the cells when they fit.
        if case .integer(let i) = value, screen.putInteger(i, x: x, y: y, width: width, style: base ?? .normal) { return }
        let (raw, special) = CellText.display(value)
        let text = CellText.truncated(raw, to: width)
        let style = base ?? (special ? .special : .normal)
        let pad = numeric ? max(0, width - CellText.width(of: text)) : 0
        screen.put(text, x: x + pad, y: y, style: style, maxWidth: width - pad)
    }

    // MARK: Record view, add form, lists

    static func drawRecord(_ model: BrowserModel, _ screen: inout ScreenBuffer, _ area: Area, selected: Int) {
        guard let entity = model.entity, let row = model.currentRow else { return }
        // The attributes, then the relationships (each with what it leads to).
        let names = entity.columns.map(\.name) + entity.relationships.map(\.name)
        let nameWidth = min(names.map { CellText.width(of: TerminalText.escaped($0)) }.max() ?? 0, max(4, area.width / 3))
        let valueWidth = max(1, area.width - nameWidth - 3)
        var blocks: [(index: Int, lines: [String], special: Bool)] = []
        for i in entity.columns.indices {
            let (text, special) = CellText.display(row.value(at: i) ?? .null)
            blocks.append((i, CellText.wrapped(text, to: valueWidth), special))
        }
        for (n, summary) in model.relatedSummaries.enumerated() where n < entity.relationships.count {
            blocks.append((entity.columns.count + n, CellText.wrapped(TerminalText.escaped(summary), to: valueWidth), true))
        }
        // Scroll so that the selected attribute's first line is visible.
        var skip = 0
        var linesBefore = blocks.prefix(selected).reduce(0) { $0 + $1.lines.count }
        while linesBefore >= area.height, skip < selected {
            linesBefore -= blocks[skip].lines.count
            skip += 1
        }
        var y = area.y
        for block in blocks.dropFirst(skip) {
            let isSelected = block.index == selected
            for (n, line) in block.lines.enumerated() {
                guard y < area.y + area.height else { return }
                let style: CellStyle = isSelected ? .cursorRow : .normal
                screen.fill(x: area.x, y: y, count: area.width, style: style)
                if n == 0 {
                    screen.put(CellText.truncated(TerminalText.escaped(names[block.index]), to: nameWidth),
                               x: area.x, y: y, style: isSelected ? .cursor : .header, maxWidth: nameWidth)
                }
                screen.put(line, x: area.x + nameWidth + 3, y: y, style: block.special && !isSelected ? .special : style,
                           maxWidth: valueWidth)
                y += 1
            }
        }
    }

    static func drawAddForm(_ model: BrowserModel, _ screen: inout ScreenBuffer, _ area: Area, _ form: BrowserModel.AddForm) {
        guard let entity = model.entity else { return }
        screen.put("new " + TerminalText.escaped(entity.name), x: area.x, y: area.y, style: .header, maxWidth: area.width)
        let nameWidth = min(entity.columns.map { CellText.width(of: TerminalText.escaped($0.name)) }.max() ?? 0, max(4, area.width / 3))
        let first = max(0, form.selected - (area.height - 2))
        for (row, i) in (first..<entity.columns.count).enumerated() where row < area.height - 1 {
            let y = area.y + 1 + row
            let isSelected = i == form.selected
            screen.fill(x: area.x, y: y, count: area.width, style: isSelected ? .cursorRow : .normal)
            screen.put(CellText.truncated(TerminalText.escaped(entity.columns[i].name), to: nameWidth), x: area.x, y: y,
                       style: isSelected ? .cursor : .header, maxWidth: nameWidth)
            let valueX = area.x + nameWidth + 3
            if entity.columns[i].isGenerated {
                screen.put("(generated, read-only)", x: valueX, y: y, style: .special, maxWidth: area.width - nameWidth - 3)
            } else if form.nulls.contains(i) {
                screen.put("NULL", x: valueX, y: y, style: .special, maxWidth: area.width - nameWidth - 3)
            } else if let field = form.fields[i] {
                screen.put(TerminalText.escaped(field.text), x: valueX, y: y, style: isSelected ? .cursorRow : .normal,
                           maxWidth: area.width - nameWidth - 3)
                if isSelected {
                    let caretWidth = CellText.width(of: TerminalText.escaped(String(field.characters[0..<field.caret])))
                    screen.cursor = (x: min(valueX + caretWidth, screen.width - 1), y: y)
                }
            } else {
                screen.put("(default)", x: valueX, y: y, style: .special, maxWidth: area.width - nameWidth - 3)
            }
        }
    }

    static func drawLines(_ lines: [String], title: String, _ screen: inout ScreenBuffer, _ area: Area, scroll: Int) {
        screen.put(title, x: area.x, y: area.y, style: .header, maxWidth: area.width)
        for (row, line) in lines.dropFirst(scroll).enumerated() where row < area.height - 1 {
            screen.put(line, x: area.x, y: area.y + 1 + row, style: .modal, maxWidth: area.width)
        }
    }
}
