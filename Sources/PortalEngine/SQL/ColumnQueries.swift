import PortalPredicate

// Statements that describe one attribute's values over an entity's (filtered) rows: its
// frequency table — each value and how many rows hold it, most frequent first, paged by keyset
// on (count, value) — the number of its distinct values, and its statistics with a histogram.
// The browser's `F` and `I` ask for these; they name the attribute's storage column.

/// Statement builders for a column's frequency table and statistics.
public enum ColumnQueries {
    /// Where a page of the frequency table starts, by key (count descending, then value).
    public enum FrequencyAnchor: Sendable, Hashable {
        case first
        case last
        /// The values strictly after this one (held by `count` rows) in the table's order.
        case after(Value, count: Int)
        /// The values strictly before this one; the statement returns them in reverse order.
        case before(Value, count: Int)
        /// This value (if it is still there) and those after it.
        case atOrAfter(Value, count: Int)

        /// True when the statement returns its rows last first (the caller reverses them).
        public var isBackward: Bool {
            switch self {
            case .last, .before: return true
            case .first, .after, .atOrAfter: return false
            }
        }
    }

    /// True when no two rows share a value of the attribute: an integer primary key (the rowid),
    /// or a NOT NULL attribute that is the whole primary key or a unique index (not a partial
    /// one: the rows outside its WHERE may repeat a value). Every count is
    /// then 1, so the frequency table is the values in order, read from the index without
    /// grouping — the first screen of a ten-million-value column appears at once.
    public static func isUnique(_ entity: EntityDescription, _ attribute: AttributeDescription) -> Bool {
        guard entity.kind == .table else { return false }
        let column = attribute.column.lowercased()
        let isWholeKey = entity.primaryKey.map { $0.lowercased() } == [column]
        if isWholeKey, entity.hasRowid, attribute.declaredType.uppercased() == "INTEGER" { return true }
        guard !attribute.isNullable else { return false }
        return isWholeKey || entity.indexes.contains {
            $0.isUnique && !$0.isPartial && $0.columns.map { $0.lowercased() } == [column]
        }
    }

    /// One page of the frequency table: rows of (value, count), most frequent first, equal
    /// counts by value (NULL first), from `anchor`, at most `limit`.
    public static func frequencies(_ entity: EntityDescription, _ attribute: AttributeDescription, condition: SQLFragment?,
                                   anchor: FrequencyAnchor, limit: Int, alias: String = "t0",
                                   dialect: any SQLDialect) -> Select {
        let value = shown(attribute, alias: alias, dialect: dialect)
        let unique = isUnique(entity, attribute)
        var parts: [Keyset.Part] = []
        if !unique { parts.append(Keyset.Part(expression: "count(*)", ascending: false, nullable: false)) }
        parts.append(Keyset.Part(expression: value, ascending: true, nullable: !unique))
        var keyset: SQLFragment?
        switch anchor {
        case .first, .last: break
        case .after(let v, let n): keyset = Keyset.condition(parts, unique ? [v] : [.integer(Int64(n)), v], .after)
        case .before(let v, let n): keyset = Keyset.condition(parts, unique ? [v] : [.integer(Int64(n)), v], .before)
        case .atOrAfter(let v, let n): keyset = Keyset.condition(parts, unique ? [v] : [.integer(Int64(n)), v], .atOrAfter)
        }
        let order = SQLFragment(parts.map { $0.ordering(reversed: anchor.isBackward, in: dialect) }.joined(separator: ", "))
        let columns = Select.Columns.expressions([SQLFragment(value), SQLFragment(unique ? "1" : "count(*)")])
        if unique {
            return Select(entity, alias: alias, columns: columns, condition: both(condition, keyset), order: order, limit: limit)
        }
        var select = Select(entity, alias: alias, columns: columns, condition: condition, order: order, limit: limit)
        select.groupBy = [SQLFragment(value)]
        select.having = keyset
        return select
    }

    /// The number of distinct values (NULL counting as one) among the rows matching `condition`;
    /// with a `limit`, counting stops there.
    public static func distinctCount(_ entity: EntityDescription, _ attribute: AttributeDescription, condition: SQLFragment?,
                                     limit: Int?, dialect: any SQLDialect, alias: String = "t0") -> Select {
        var select = Select(entity, alias: alias, columns: .count, condition: condition, limit: limit)
        if !isUnique(entity, attribute) { select.groupBy = [SQLFragment(column(alias, attribute.column, dialect))] }
        return select
    }

    /// One row: the number of rows, of non-NULL values, of distinct values, the least and the
    /// greatest value, the average of the numbers, and (for `dates`) the least and greatest
    /// value as day numbers (NULL where a value is no date).
    public static func summary(_ entity: EntityDescription, _ attribute: AttributeDescription, condition: SQLFragment?,
                               dates: Bool, dialect: some SQLDialect, alias: String = "t0") -> Select {
        let value = SQLFragment(shown(attribute, alias: alias, dialect: dialect))
        let numbers = dialect.numberOrNull(value)
        var columns: [SQLFragment] = [SQLFragment("count(*)"), "count(" + value + ")", "count(DISTINCT " + value + ")",
                                      "min(" + value + ")", "max(" + value + ")", "avg(" + numbers + ")"]
        if dates {
            let day = dialect.dayNumber(value.sql)
            columns += [SQLFragment("min(" + day + ")"), SQLFragment("max(" + day + ")")]
        }
        return Select(entity, alias: alias, columns: .expressions(columns), condition: condition)
    }

    /// The shortest (or, `longest`, the longest) non-NULL value, ties broken by value.
    public static func shortest(_ entity: EntityDescription, _ attribute: AttributeDescription, condition: SQLFragment?,
                                longest: Bool, alias: String = "t0", dialect: any SQLDialect) -> Select {
        let value = shown(attribute, alias: alias, dialect: dialect)
        let direction = longest ? "DESC" : "ASC"
        return Select(entity, alias: alias, columns: .expressions([SQLFragment(value)]),
                      condition: both(condition, SQLFragment(value + " IS NOT NULL")),
                      order: dialect.textLength(SQLFragment(value)) + " \(direction), \(value) \(direction)", limit: 1)
    }

    /// The histogram: rows of (bin, count) in bin order, for the bins that hold any value. Bin
    /// `i` holds the numbers (or, for `dates`, the day numbers) from `lower + i × width` up to
    /// the next bin's start; the greatest value falls in the last bin, `bins − 1`. Values that
    /// are no number (no date) are left out.
    public static func histogram(_ entity: EntityDescription, _ attribute: AttributeDescription, condition: SQLFragment?,
                                 dates: Bool, lower: Double, width: Double, bins: Int, dialect: some SQLDialect,
                                 alias: String = "t0") -> Select {
        let value = SQLFragment(shown(attribute, alias: alias, dialect: dialect))
        let x = dates ? SQLFragment(dialect.dayNumber(value.sql)) : dialect.numberOrNull(value)
        let valid = x + " IS NOT NULL"
        let offset = "(" + x + " - " + .bound(.real(lower)) + ") / " + .bound(.real(width > 0 ? width : 1))
        let binned = dialect.least(dialect.integerPart(offset), .bound(.integer(Int64(max(0, bins - 1)))))
        var select = Select(entity, alias: alias, columns: .expressions([binned, SQLFragment("count(*)")]),
                            condition: both(condition, valid), order: SQLFragment("1"))
        select.groupBy = [SQLFragment("1")]
        return select
    }

    /// The attribute's values as `find` shows them: Core Data's dates (seconds since 2001) as
    /// date text, which sorts by time; its UUID blobs as UUID text; other columns as stored, in a
    /// type that has `min` and `max` (`SQLDialect.comparable`).
    static func shown(_ attribute: AttributeDescription, alias: String, dialect: any SQLDialect) -> String {
        let value = column(alias, attribute.column, dialect)
        return switch attribute.storage {
        case .natural: dialect.comparable(value, declaredType: attribute.declaredType)
        case .secondsSinceReferenceDate: dialect.dateText(unixSeconds: attribute.storage.languageValue(of: value))
        case .uuidBlob: dialect.uuidText(value)
        case .archivedValue: attribute.storage.languageValue(of: value)
        }
    }

    /// Both conditions (either may be absent).
    private static func both(_ a: SQLFragment?, _ b: SQLFragment?) -> SQLFragment? {
        guard let a else { return b }
        guard let b else { return a }
        return a.parenthesized + " AND " + b.parenthesized
    }
}
