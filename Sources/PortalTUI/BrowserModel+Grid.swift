import PortalEngine

// The grid and the entity list: moving, paging, columns, sorting.
extension BrowserModel {
    // MARK: Grid

    func handleGrid(_ key: BrowserKey) {
        switch key {
        case .down, .character("j"): moveDown(1)
        case .up, .character("k"): moveUp(1)
        case .wheelDown: moveDown(3)
        case .wheelUp: moveUp(3)
        case .left, .character("h"): moveColumn(-1)
        case .right, .character("l"): moveColumn(1)
        case .character("0"): jumpToColumn(first: true)
        case .character("$"): jumpToColumn(first: false)
        case .pageDown, .control("f"), .character(" "): pageDown()
        case .pageUp, .control("b"): pageUp()
        case .home, .character("g"): load(anchor: .first, cursorID: nil)
        case .end, .character("G"): jumpToEnd()
        case .tab:
            focus = .entities
            entitySelection = entityIndex
        case .character("/"):
            mode = .filter(LineEditor(filter), error: nil)
        case .character("s"): toggleSort(.ascending)
        case .character("S"): toggleSort(.descending)
        case .enter:
            if currentRow != nil {
                mode = .record(selected: cursorColumn)
                summarizeRelationships()
            }
        case .character("e"): beginEdit(column: cursorColumn, fromRecord: false)
        case .character("a"): beginAdd()
        case .character("d"):
            if writeAllowed() {
                if currentRow == nil { setStatus("nothing to delete", error: true) } else { mode = .confirmDelete }
            }
        case .character("u"): undo()
        case .character("f"): follow()
        case .backspace: goBack()
        case .character("r"):
            reload()
            recount()
            countEntities()
            setStatus("reloaded", error: false)
        case .character(":"):
            if runCommand == nil {
                setStatus("commands are not available here", error: true)
            } else {
                mode = .command(LineEditor())
            }
        case .character("F"): openFrequency()
        case .character("I"): openStatistics()
        case .character("-"): hideColumn()
        case .character("+"): showColumns()
        case .character("?"): mode = .help(scroll: 0)
        case .character("q"):
            if backStack.isEmpty { isFinished = true } else { goBack() }
        case .escape:
            // Only `q` quits: Esc goes back from a followed key, else says how to leave.
            if backStack.isEmpty { setStatus("q quits", error: false) } else { goBack() }
        default: break
        }
    }

    func moveDown(_ n: Int) {
        for _ in 0..<n {
            if cursorRow < rows.count - 1 {
                cursorRow += 1
                continue
            }
            guard let last = rows.last, let next = fetch(.after(last), limit: 1), let row = next.first else { return }
            rows.append(row)
            if rows.count > pageSize { rows.removeFirst(rows.count - pageSize) }
            cursorRow = rows.count - 1
        }
    }

    func moveUp(_ n: Int) {
        for _ in 0..<n {
            if cursorRow > 0 {
                cursorRow -= 1
                continue
            }
            guard let first = rows.first, let previous = fetch(.before(first), limit: 1), let row = previous.first else { return }
            rows.insert(row, at: 0)
            if rows.count > pageSize { rows.removeLast(rows.count - pageSize) }
            cursorRow = 0
        }
    }

    func pageDown() {
        guard let last = rows.last, let next = fetch(.after(last), limit: pageSize) else { return }
        if next.isEmpty {
            cursorRow = max(0, rows.count - 1)
        } else if next.count == pageSize {
            rows = next
            cursorRow = min(cursorRow, rows.count - 1)
        } else {
            rows = Array((rows + next).suffix(pageSize))
            cursorRow = rows.count - 1
        }
    }

    func pageUp() {
        guard let first = rows.first, let previous = fetch(.before(first), limit: pageSize) else { return }
        if previous.isEmpty {
            cursorRow = 0
        } else if previous.count == pageSize {
            rows = previous
            cursorRow = min(cursorRow, rows.count - 1)
        } else {
            rows = Array((previous + rows).prefix(pageSize))
            cursorRow = 0
        }
    }

    func jumpToEnd() {
        guard let page = fetch(.last, limit: pageSize) else { return }
        rows = page
        cursorRow = max(0, rows.count - 1)
    }

    /// Moves to the next shown column that way, if there is one.
    func moveColumn(_ delta: Int) {
        guard let entity else { return }
        var target = cursorColumn + delta
        while entity.columns.indices.contains(target), isHidden(target) { target += delta }
        if entity.columns.indices.contains(target) { cursorColumn = target }
        clampColumn()
    }

    /// To the first or the last shown column (vi's `0` and `$`), scrolled into view.
    func jumpToColumn(first: Bool) {
        guard let entity else { return }
        let shown = entity.columns.indices.filter { !isHidden($0) }
        guard let target = first ? shown.first : shown.last else { return }
        cursorColumn = target
        clampColumn()
    }

    /// Keeps the cursor column in range, on a shown column, and scrolled into view.
    func clampColumn() {
        guard let entity else { return }
        cursorColumn = min(max(0, cursorColumn), max(0, entity.columns.count - 1))
        if isHidden(cursorColumn) {
            let shown = entity.columns.indices.filter { !isHidden($0) }
            cursorColumn = shown.first { $0 > cursorColumn } ?? shown.last ?? 0
        }
        if cursorColumn < columnOffset { columnOffset = cursorColumn }
        let widths = columnWidths()
        let available = gridWidth
        let hidden = self.hidden
        while columnOffset < cursorColumn {
            let used = (columnOffset...cursorColumn).reduce(0) {
                hidden.contains(entity.columns[$1].name) ? $0 : $0 + widths[$1] + 1
            }
            if used - 1 <= available { break }
            columnOffset += 1
        }
    }

    /// Width of the left pane listing the entities (0 when hidden).
    public var paneWidth: Int {
        guard focus == .entities || width >= 120 else { return 0 }
        return min(28, max(16, width / 4))
    }

    public var gridWidth: Int { max(1, width - paneWidth) }

    /// Each column's width: wide enough for its header and the visible values, at most 40.
    public func columnWidths() -> [Int] {
        if let widths { return widths }
        guard let entity else { return [] }
        let computed = entity.columns.indices.map { i in
            var w = CellText.width(of: TerminalText.escaped(entity.columns[i].name)) + (sort?.column == entity.columns[i].name ? 1 : 0)
            for row in rows {
                if let value = row.value(at: i) { w = max(w, CellText.displayWidth(value)) }
            }
            return min(max(w, 3), 40)
        }
        widths = computed
        return computed
    }

    func toggleSort(_ direction: BrowserSortDirection) {
        guard let column = entity?.columns[safe: cursorColumn]?.name else { return }
        let old = sort
        if sort == BrowserSort(column: column, direction: direction) {
            sort = nil
        } else {
            sort = BrowserSort(column: column, direction: direction)
        }
        workName = "sorting…"
        // Cancelled (Ctrl-C) or failed: the rows on screen are still in the old order.
        if !load(anchor: .first, cursorID: nil) { sort = old }
    }

    // MARK: Entity list

    func handleEntityList(_ key: BrowserKey) {
        switch key {
        case .down, .character("j"), .wheelDown: entitySelection = min(entitySelection + 1, max(0, entities.count - 1))
        case .up, .character("k"), .wheelUp: entitySelection = max(entitySelection - 1, 0)
        case .home, .character("g"): entitySelection = 0
        case .end, .character("G"): entitySelection = max(0, entities.count - 1)
        case .enter, .right, .character("l"):
            focus = .grid
            if entitySelection != entityIndex {
                backStack = []
                open(entitySelection, filter: "", sort: nil)
            }
        case .tab, .escape: focus = .grid
        case .character("q"): isFinished = true
        case .character("?"): mode = .help(scroll: 0)
        default: break
        }
    }
}
