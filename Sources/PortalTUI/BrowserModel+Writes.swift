import PortalEngine

// Edits, adds, deletes and their undo log (`e`, `a`, `d`, `u`).
extension BrowserModel {
    // MARK: Writes

    /// Whether writes are allowed here; says why not in the status line.
    func writeAllowed() -> Bool {
        if readOnly {
            setStatus("read-only session: e, a, d and u are disabled", error: true)
            return false
        }
        if let entity, entity.isReadOnly {
            setStatus("\(entity.name) is read-only (a view or an entity without a primary id)", error: true)
            return false
        }
        return entity != nil
    }

    func beginEdit(column: Int, fromRecord: Bool) {
        guard writeAllowed() else { return }
        guard let value = currentRow?.value(at: column) else {
            setStatus("nothing to edit", error: true)
            return
        }
        if let info = entity?.columns[safe: column], info.isGenerated {
            setStatus("\(info.name) is a generated column: it is computed, not edited", error: true)
            return
        }
        if case .blob = value {
            setStatus("blobs cannot be edited here", error: true)
            return
        }
        mode = .editCell(column: column, editor: LineEditor(CellText.editable(value)), isNull: value.isNull,
                         fromRecord: fromRecord)
    }

    func handleEditor(_ key: BrowserKey, column: Int, editor: inout LineEditor, isNull: Bool, fromRecord: Bool) {
        let back: Mode = fromRecord ? .record(selected: column) : .browse
        switch key {
        case .escape:
            mode = back
        case .control("n"):
            mode = .editCell(column: column, editor: LineEditor(), isNull: true, fromRecord: fromRecord)
        case .enter:
            mode = back
            guard let entity, let row = currentRow, let name = entity.columns[safe: column]?.name else { return }
            let old = row.value(at: column) ?? .null
            let value = isNull ? Value.null : Self.value(from: editor.text, like: old, column: entity.columns[column])
            do {
                let updated = try source.update(entity: entity.name, id: row.id, column: name, value: value)
                undoLog.record(.update(entity: entity.name, id: updated.id, column: name, old: old))
                rows[cursorRow] = updated
                afterWrite("updated \(entity.name).\(name)")
            } catch {
                setStatus("not saved: \(message(of: error))", error: true)
            }
        default:
            guard editor.handle(key) else { return }
            mode = .editCell(column: column, editor: editor, isNull: false, fromRecord: fromRecord)
        }
    }

    /// Typed text as a value: a number where the old value or the column is numeric, else text
    /// (SQLite's affinity converts it where the column declares a type). A decimal keeps every
    /// digit where the column or the old value is an exact decimal (PostgreSQL's `numeric`),
    /// or where no double writes it back.
    static func value(from text: String, like old: Value, column: BrowserColumn) -> Value {
        let numeric: Bool
        var exact = column.holdsExactDecimals
        switch old {
        case .integer, .real: numeric = true
        case .decimal: numeric = true; exact = true
        case .text: numeric = false
        default: numeric = column.isNumeric
        }
        if numeric {
            if let i = Int64(text) { return .integer(i) }
            if exact, let d = ExactDecimal(text) { return .decimal(d) }
            if let d = ExactDecimal.literal(text) { return .decimal(d) }
            if let d = Double(text), d.isFinite { return .real(d) }
        }
        return .text(text)
    }

    func beginAdd() {
        guard writeAllowed(), let entity else { return }
        var form = AddForm(fields: Array(repeating: nil, count: entity.columns.count))
        form.selected = writableField(entity, from: 0, step: 1) ?? 0
        mode = .add(form)
    }

    /// The first field at or after `start` (going by `step`) that can be written: generated
    /// columns are shown read-only and skipped.
    func writableField(_ entity: BrowserEntity, from start: Int, step: Int) -> Int? {
        var i = start
        while entity.columns.indices.contains(i) {
            if !entity.columns[i].isGenerated { return i }
            i += step
        }
        return nil
    }

    func handleAdd(_ key: BrowserKey, _ form: inout AddForm) {
        guard let entity else { mode = .browse; return }
        switch key {
        case .escape:
            mode = .browse
            return
        case .down, .tab:
            form.selected = writableField(entity, from: form.selected + 1, step: 1) ?? form.selected
        case .up, .backTab:
            form.selected = writableField(entity, from: form.selected - 1, step: -1) ?? form.selected
        case .control("n"):
            form.fields[form.selected] = nil
            form.nulls.insert(form.selected)
        case .control("x"):
            form.fields[form.selected] = nil
            form.nulls.remove(form.selected)
        case .enter:
            mode = .browse
            submit(form, entity)
            return
        default:
            if entity.columns[safe: form.selected]?.isGenerated ?? true {
                setStatus("no attribute here can be set: generated columns are computed", error: true)
                return
            }
            var editor = form.fields[form.selected] ?? LineEditor()
            guard editor.handle(key) else { return }
            form.fields[form.selected] = editor
            form.nulls.remove(form.selected)
        }
        mode = .add(form)
    }

    func submit(_ form: AddForm, _ entity: BrowserEntity) {
        var values: [(String, Value)] = []
        for (i, column) in entity.columns.enumerated() where !column.isGenerated {
            if form.nulls.contains(i) {
                values.append((column.name, .null))
            } else if let field = form.fields[i] {
                values.append((column.name, Self.value(from: field.text, like: .null, column: column)))
            }
        }
        do {
            let row = try source.create(entity: entity.name, values: values)
            undoLog.record(.create(entity: entity.name, id: row.id))
            load(anchor: .atOrAfter(row), cursorID: row.id)
            afterWrite("created \(entity.name)")
        } catch {
            mode = .add(form)
            setStatus("not created: \(message(of: error))", error: true)
        }
    }

    func handleConfirmDelete(_ key: BrowserKey) {
        mode = .browse
        guard case .character(let c) = key, c == "y" || c == "Y" else {
            setStatus("not deleted", error: false)
            return
        }
        guard let entity, let row = currentRow else { return }
        do {
            try source.delete(entity: entity.name, id: row.id)
            undoLog.record(.delete(entity: entity.name, row: row))
            let fallback = cursorRow
            load(anchor: .atOrAfter(rows.first ?? row), cursorID: nil, cursorFallback: fallback)
            afterWrite("deleted 1 \(entity.name)")
        } catch {
            setStatus("not deleted: \(message(of: error))", error: true)
        }
    }

    func undo() {
        guard !readOnly else {
            _ = writeAllowed()
            return
        }
        guard let action = undoLog.takeLast() else {
            setStatus("nothing to undo", error: false)
            return
        }
        do {
            switch action {
            case .update(let name, let id, let column, let old):
                let row = try source.update(entity: name, id: id, column: column, value: old)
                if let i = rows.firstIndex(where: { $0.id == id }), name == entity?.name { rows[i] = row }
                afterWrite("undone: update of \(name).\(column)")
            case .create(let name, let id):
                try source.delete(entity: name, id: id)
                afterWrite("undone: creation in \(name)")
            case .delete(let name, let row):
                let restored = try source.restore(entity: name, id: row.id, values: restoreValues(name, row))
                if name == entity?.name { load(anchor: .atOrAfter(restored), cursorID: restored.id) }
                afterWrite("undone: deletion in \(name)")
            }
        } catch {
            undoLog.putBack(action)
            setStatus("undo failed: \(message(of: error))", error: true)
        }
    }

    /// Every attribute of a deleted row, plus the rowid when that is its identity.
    func restoreValues(_ name: String, _ row: BrowserRow) -> [(String, Value)] {
        guard let entity = entities.first(where: { $0.name == name }) else { return [] }
        var values = zip(entity.columns, row.values).filter { !$0.0.isGenerated }.map { ($0.name, $1) }
        for (column, value) in zip(entity.idColumns, row.id) where !entity.columns.contains(where: { $0.name == column }) {
            values.append((column, value))
        }
        return values
    }

    /// After a successful write: show the rows as stored now and say what happened.
    func afterWrite(_ text: String) {
        lastToken = source.changeToken()
        reload()
        recount()
        setStatus(text, error: false)
    }
}
