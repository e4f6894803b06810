import PortalEngine

// `F` and `I` over the engine: a column's frequency table (keyset pages on (count, value)), its
// number of distinct values, and its statistics with a histogram — statements built by the
// engine's `ColumnQueries` over the same compiled filter as the grid's pages.
extension EngineDataSource {
    public func frequencies(_ request: FrequencyRequest) throws -> [FrequencyRow] {
        try read { context in
            let (entity, condition, _) = try compiled(context, request.entity, request.filter)
            let attribute = try Self.attribute(request.column, of: entity)
            let anchor: ColumnQueries.FrequencyAnchor
            switch request.anchor {
            case .first: anchor = .first
            case .last: anchor = .last
            case .after(let row): anchor = .after(row.value, count: row.count)
            case .before(let row): anchor = .before(row.value, count: row.count)
            case .atOrAfter(let row): anchor = .atOrAfter(row.value, count: row.count)
            }
            let select = ColumnQueries.frequencies(entity, attribute, condition: condition, anchor: anchor,
                                                   limit: max(0, request.limit), dialect: store.dialect).rendered(in: store.dialect)
            var rows: [FrequencyRow] = []
            try context.forEachRow(cached: select.sql, select.bindings) { statement in
                rows.append(FrequencyRow(value: statement.value(at: 0), count: Self.integer(statement.value(at: 1))))
            }
            return anchor.isBackward ? rows.reversed() : rows
        }
    }

    public func countValues(entity name: String, filter: String, column: String, budget: Duration?) throws -> RowCount {
        try read { context in
            let (entity, condition, _) = try compiled(context, name, filter)
            let attribute = try Self.attribute(column, of: entity)
            let limit = budget == nil ? nil : countLimit
            let select = ColumnQueries.distinctCount(entity, attribute, condition: condition, limit: limit, dialect: store.dialect)
                .rendered(in: store.dialect)
            let n = Self.integer(try context.query(select.sql, select.bindings).rows.first?.values.first ?? .null)
            if let limit, n >= limit { return .atLeast(n) }
            return .exact(n)
        }
    }

    public func statistics(entity name: String, filter: String, column: String) throws -> ColumnSummary {
        try read { context in
            let (entity, condition, _) = try compiled(context, name, filter)
            let attribute = try Self.attribute(column, of: entity)
            let dates = attribute.holdsDates
            func run(_ select: Select) throws -> [[Value]] {
                let sql = select.rendered(in: store.dialect)
                return try context.query(sql.sql, sql.bindings).rows.map(\.values)
            }
            let totals = try run(ColumnQueries.summary(entity, attribute, condition: condition, dates: dates,
                                                       dialect: store.dialect)).first ?? []
            let value = { (i: Int) in totals[safe: i] ?? .null }
            let rows = Self.integer(value(0))
            var summary = ColumnSummary(kind: .other, rows: rows, nulls: rows - Self.integer(value(1)),
                                        distinct: Self.integer(value(2)), minimum: value(3), maximum: value(4))
            let lowDay = Self.double(value(6)), highDay = Self.double(value(7))
            if let low = Self.double(value(3)), let high = Self.double(value(4)) {
                summary.kind = .number
                summary.average = Self.double(value(5))
                let plan = HistogramPlan(lower: low, upper: high, integral: Self.isInteger(value(3)) && Self.isInteger(value(4)))
                summary.histogram = try histogram(plan, dates: false, run: run, entity, attribute, condition)
            } else if dates, case .text = value(3), let low = lowDay, let high = highDay {
                summary.kind = .date
                let plan = HistogramPlan(lower: low, upper: high, integral: false)
                summary.histogram = try histogram(plan, dates: true, run: run, entity, attribute, condition)
            } else if case .text = value(4) {
                summary.kind = .text
                summary.shortest = try run(ColumnQueries.shortest(entity, attribute, condition: condition, longest: false,
                                                                  dialect: store.dialect))
                    .first?.first
                summary.longest = try run(ColumnQueries.shortest(entity, attribute, condition: condition, longest: true,
                                                                 dialect: store.dialect))
                    .first?.first
            }
            return summary
        }
    }

    private func histogram(_ plan: HistogramPlan, dates: Bool, run: (Select) throws -> [[Value]], _ entity: EntityDescription,
                           _ attribute: AttributeDescription, _ condition: SQLFragment?) throws -> [HistogramBin] {
        let select = ColumnQueries.histogram(entity, attribute, condition: condition, dates: dates, lower: plan.lower,
                                             width: plan.width, bins: plan.count, dialect: store.dialect)
        let pairs = try run(select).map { (bin: Self.integer($0[safe: 0] ?? .null), count: Self.integer($0[safe: 1] ?? .null)) }
        return plan.filled(pairs).enumerated().map { i, n in
            HistogramBin(label: dates ? plan.dateLabel(i) : plan.numberLabel(i), count: n)
        }
    }

    static func attribute(_ name: String, of entity: EntityDescription) throws -> AttributeDescription {
        guard let attribute = entity.attribute(named: name) else { throw BrowserError("no attribute '\(name)' on \(entity.name)") }
        return attribute
    }

    static func integer(_ value: Value) -> Int {
        switch value {
        case .integer(let i): return Int(i)
        case .real(let d) where d.isFinite && abs(d) < 9e18: return Int(d)
        default: return 0
        }
    }

    /// The number a value holds, nil when it holds none.
    static func double(_ value: Value) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }

    static func isInteger(_ value: Value) -> Bool {
        if case .integer = value { return true }
        return false
    }
}
