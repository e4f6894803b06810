import PortalEngine

// The record view (Enter) and following relationships (`f`, Backspace).
extension BrowserModel {
    // MARK: Record view

    func handleRecord(_ key: BrowserKey, _ selected: Int) {
        let columns = entity?.columns.count ?? 0
        let count = columns + (entity?.relationships.count ?? 0)
        switch key {
        case .down, .character("j"): mode = .record(selected: min(selected + 1, max(0, count - 1)))
        case .up, .character("k"): mode = .record(selected: max(selected - 1, 0))
        case .home, .character("g"): mode = .record(selected: 0)
        case .end, .character("G"): mode = .record(selected: max(0, count - 1))
        case .character("e"):
            if selected >= columns {
                setStatus("a relationship is not edited here: f follows it", error: true)
            } else {
                beginEdit(column: selected, fromRecord: true)
            }
        case .character("f"):
            mode = .browse
            if selected >= columns {
                followRelationship(selected - columns)
            } else {
                cursorColumn = selected
                follow()
            }
        case .enter, .escape, .character("q"):
            cursorColumn = min(selected, max(0, columns - 1))
            mode = .browse
            clampColumn()
        case .character("?"): mode = .help(scroll: 0)
        default: break
        }
    }

    // MARK: Following keys

    func follow() {
        guard let entity, let row = currentRow, let column = entity.columns[safe: cursorColumn] else { return }
        guard let reference = column.reference else {
            // A column of a composite foreign key: the relationship joins on all its columns.
            if let index = entity.relationships.firstIndex(where: { !$0.isToMany && $0.sourceColumns.contains(column.name) }) {
                return followRelationship(index)
            }
            setStatus("\(column.name) is not a foreign key (Enter lists the relationships; f follows one)", error: true)
            return
        }
        let value = row.value(at: cursorColumn) ?? .null
        if value.isNull {
            setStatus("\(column.name) is NULL: nothing to follow", error: true)
            return
        }
        guard let target = entityIndex(named: reference.entity) else {
            setStatus("no entity named '\(reference.entity)'", error: true)
            return
        }
        backStack.append(Place(entityIndex: entityIndex, filter: filter, sort: sort, top: rows.first,
                               cursorID: row.id, cursorColumn: cursorColumn))
        let targetFilter = Self.equalityFilter([(reference.column, value)])
        open(target, filter: targetFilter, sort: nil)
        if let i = entities[target].columns.firstIndex(where: { $0.name == reference.column }) {
            cursorColumn = i
            clampColumn()
        }
    }

    /// `a == 1 AND b == 2`, printed by the predicate printer: reserved-word or odd column
    /// names and any value come out as text that parses back to exactly these comparisons.
    static func equalityFilter(_ pairs: [(column: String, value: Value)]) -> String {
        let comparisons = pairs.map { PredicateTree.comparison(Comparison(.key($0.column), .equal, .literal($0.value))) }
        guard let first = comparisons.first else { return "" }
        return comparisons.dropFirst().reduce(first) { .and($0, $1) }.description
    }

    /// The filter on the relationship's destination that finds the rows related to `row`; nil
    /// when a joining value is NULL (nothing is related).
    func relatedFilter(_ relationship: BrowserRelationship, _ row: BrowserRow, _ entity: BrowserEntity) -> String? {
        if let inverse = relationship.inverse {
            return Self.inverseFilter(inverse, row)
        }
        var pairs: [(column: String, value: Value)] = []
        for (source, destination) in zip(relationship.sourceColumns, relationship.destinationColumns) {
            guard let value = Self.value(of: source, in: row, entity), !value.isNull else { return nil }
            pairs.append((destination, value))
        }
        return pairs.isEmpty ? nil : Self.equalityFilter(pairs)
    }

    /// The destination's rows related to `row` by the relationship back: `folder == 4`, or
    /// `SUBQUERY(notes, $x, $x == 4).@count > 0` when it is to-many; nil without a single id.
    static func inverseFilter(_ inverse: (name: String, isToMany: Bool), _ row: BrowserRow) -> String? {
        guard row.id.count == 1, let id = row.id.first, !id.isNull else { return nil }
        let key = ExpressionTree.key(inverse.name)
        guard inverse.isToMany else { return PredicateTree.comparison(Comparison(key, .equal, .literal(id))).description }
        let element = PredicateTree.comparison(Comparison(.variable("x"), .equal, .literal(id)))
        let subquery = ExpressionTree.subquery(collection: key, variable: "x", predicate: element)
        return PredicateTree.comparison(Comparison(.member(subquery, "@count"), .greater, .literal(.integer(0)))).description
    }

    /// The row's value of `column`, which may be the rowid (an id that is no column).
    static func value(of column: String, in row: BrowserRow, _ entity: BrowserEntity) -> Value? {
        if let i = entity.columns.firstIndex(where: { $0.name.lowercased() == column.lowercased() }) { return row.value(at: i) }
        if let i = entity.idColumns.firstIndex(where: { $0.lowercased() == column.lowercased() }) { return row.id[safe: i] }
        return nil
    }

    /// Fills `relatedSummaries` for the current row (on opening the record view).
    func summarizeRelationships() {
        guard let entity, let row = currentRow else {
            relatedSummaries = []
            return
        }
        relatedSummaries = entity.relationships.map { summary(of: $0, row, entity) }
    }

    /// `→ AC/DC  (Artist 1)` for a to-one relationship, `→ 10 Track` for a to-many one.
    func summary(of relationship: BrowserRelationship, _ row: BrowserRow, _ entity: BrowserEntity) -> String {
        guard let filter = relatedFilter(relationship, row, entity) else {
            return relationship.isToMany ? "→ 0 \(relationship.destination)" : "→ NULL"
        }
        do {
            if relationship.isToMany {
                let count = try source.count(entity: relationship.destination, filter: filter, budget: countBudget)
                return "→ \(count.label) \(relationship.destination)"
            }
            let related = try source.page(PageRequest(entity: relationship.destination, filter: filter, sort: nil,
                                                      anchor: .first, limit: 1))
            guard let target = related.first, let destination = entities.first(where: { $0.name == relationship.destination })
            else { return "→ none (no \(relationship.destination) where \(filter))" }
            return "→ " + Self.displayName(target, destination)
        } catch {
            return "→ ? (\(message(of: error)))"
        }
    }

    /// How a row is named for people: its name or title column (else the first text that is
    /// not part of its id), with the entity and id after it.
    static func displayName(_ row: BrowserRow, _ entity: BrowserEntity) -> String {
        let names = entity.columns.map { $0.name.lowercased() }
        let id = row.id.map { CellText.display($0).text }.joined(separator: ", ")
        let index = names.firstIndex { ["name", "title", "label"].contains($0) }
            ?? names.firstIndex { $0.contains("name") || $0.contains("title") }
            ?? entity.columns.indices.first { i in
                if case .text? = row.value(at: i), !entity.columns[i].isKey { return true } else { return false }
            }
        guard let index, let value = row.value(at: index), !value.isNull else { return "\(entity.name) \(id)" }
        return "\(CellText.display(value).text)  (\(entity.name) \(id))"
    }

    /// `f` on a relationship in the record view: its destination, filtered to the related rows.
    func followRelationship(_ index: Int) {
        guard let entity, let row = currentRow, let relationship = entity.relationships[safe: index] else { return }
        guard let filter = relatedFilter(relationship, row, entity) else {
            setStatus("\(relationship.name): nothing is related (a joining value is NULL)", error: true)
            return
        }
        guard let target = entityIndex(named: relationship.destination) else {
            setStatus("no entity named '\(relationship.destination)'", error: true)
            return
        }
        backStack.append(Place(entityIndex: entityIndex, filter: self.filter, sort: sort, top: rows.first,
                               cursorID: row.id, cursorColumn: cursorColumn))
        open(target, filter: filter, sort: nil)
    }

    func goBack() {
        guard let place = backStack.popLast() else {
            setStatus("nowhere to go back to", error: false)
            return
        }
        let anchor: PageAnchor = place.top.map { .atOrAfter($0) } ?? .first
        open(place.entityIndex, filter: place.filter, sort: place.sort, anchor: anchor, cursorID: place.cursorID)
        cursorColumn = place.cursorColumn
        clampColumn()
    }
}
