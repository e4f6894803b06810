import PortalPredicate

/// One table joined into a key path: `FROM/JOIN table AS alias`, linked to the previous alias
/// (or, for the first step, correlated with the outer query) by `on`.
struct JoinStep {
    /// The table, quoted, in its schema when it has one.
    var table: String
    /// The entity whose row this step reaches (nil for a many-to-many join table's row).
    var entity: String?
    var alias: String
    var on: String
    /// A column of this step's row that is not NULL exactly when a row was joined.
    var presence: String
    /// For a single-column key: the previous row's column and this row's, which `on` equates.
    var outerColumn: String?
    var innerColumn: String?
}

/// A row of an entity that SQL can reach: the query's own row (`path` empty), or a row reached
/// through to-one relationships (`path` joins from an outer alias to `alias`).
struct Scope {
    var entity: EntityDescription
    var alias: String
    var path: [JoinStep] = []
    /// `SUBQUERY` variables visible here, each naming an element row.
    var variables: [String: Scope] = [:]
    /// The alias of the row `path` starts from (`alias` itself when `path` is empty).
    var baseAlias: String

    init(entity: EntityDescription, alias: String, variables: [String: Scope] = [:]) {
        self.entity = entity
        self.alias = alias
        self.variables = variables
        self.baseAlias = alias
    }

    /// An expression evaluated on this scope's row: the expression itself when the row is the
    /// current one, else a correlated scalar subquery that walks `path`.
    func value(_ expression: SQLFragment) -> SQLFragment {
        guard let first = path.first else { return expression }
        return "(SELECT " + expression + " FROM " + JoinStep.render(path) + " WHERE " + first.on + ")"
    }
}

extension JoinStep {
    /// `"A" AS a1 JOIN "B" AS a2 ON …` — the first step's own condition goes in the WHERE clause.
    static func render(_ steps: [JoinStep]) -> String {
        var sql = ""
        for (index, step) in steps.enumerated() {
            if index == 0 {
                sql += step.table + " AS " + step.alias
            } else {
                sql += " JOIN " + step.table + " AS " + step.alias + " ON " + step.on
            }
        }
        return sql
    }

    /// The steps that follow `relationship` from the row at `alias` to a row of `destination`
    /// at `newAlias`: one join on the key columns, or two through a many-to-many join table.
    /// A destination that shares its table with other entities only matches its own rows.
    static func following(_ relationship: RelationshipDescription, to destination: EntityDescription,
                          from alias: String, to newAlias: String, joinAlias: () -> String,
                          dialect: any SQLDialect) -> [JoinStep] {
        var steps: [JoinStep] = []
        var from = (alias: alias, columns: relationship.sourceColumns)
        if let pairs = relationship.joinTable {
            let middle = joinAlias()
            steps.append(step(table: dialect.quoted(pairs.table), entity: nil, alias: middle,
                              pairs: zip(from.columns, pairs.sourceColumns), from: from.alias, discriminator: nil, dialect))
            from = (middle, pairs.destinationColumns)
        }
        steps.append(step(table: dialect.quoted(table: destination.table, in: destination.namespace),
                          entity: destination.name, alias: newAlias,
                          pairs: zip(from.columns, relationship.destinationColumns), from: from.alias,
                          discriminator: destination.discriminator, dialect))
        return steps
    }

    /// One join from the row at `from` to `table AS alias`, equating each pair of columns.
    private static func step(table: String, entity: String?, alias: String, pairs: Zip2Sequence<[String], [String]>,
                             from: String, discriminator: EntityDescription.Discriminator?, _ dialect: any SQLDialect) -> JoinStep {
        let pairs = Array(pairs)
        func column(_ alias: String, _ name: String) -> String { PortalEngine.column(alias, name, dialect) }
        var conditions = pairs.map { source, destination in column(alias, destination) + " = " + column(from, source) }
        if let discriminator { conditions.append(discriminator.condition(alias: alias, dialect)) }
        let single = pairs.count == 1
        return JoinStep(table: table, entity: entity, alias: alias, on: conditions.joined(separator: " AND "),
                        // Relationships pair at least one column (readers and catalogs make none without).
                        presence: column(alias, pairs.first?.1 ?? ""),
                        outerColumn: single ? column(from, pairs[0].0) : nil,
                        innerColumn: single ? column(alias, pairs[0].1) : nil)
    }
}

extension EntityDescription.Discriminator {
    /// `alias."Z_ENT" IN (3, 4)`: the values are the catalog's own integers, never user input.
    func condition(alias: String, _ dialect: some SQLSpelling) -> String {
        PortalEngine.column(alias, column, dialect) + (values.count == 1 ? " = \(values[0])"
                                    : " IN (" + values.map(String.init).joined(separator: ", ") + ")")
    }
}

/// The rows of a to-many key path: `FROM <steps> WHERE <first step's condition>`. Key paths
/// that cross several to-many relationships flatten into one longer chain.
struct Collection {
    var steps: [JoinStep]
    /// The alias of the element row (the last to-many step's).
    var elementAlias: String
    /// How many to-many relationships the chain crosses.
    var crossings = 1
    /// How many to-one steps lead to the first to-many one (`team.owners`: one).
    var leadingToOne = 0

    /// `FROM … WHERE …` without the SELECT list; `condition`, when given, is ANDed in.
    func fromWhere(_ condition: SQLFragment? = nil) -> SQLFragment {
        let correlation = steps.first?.on ?? "1"
        var sql = SQLFragment(" FROM " + JoinStep.render(steps) + " WHERE " + correlation)
        if let condition { sql = sql + " AND " + condition }
        return sql
    }

    /// Like `fromWhere`, but when a to-one step before the first to-many one finds no row, one
    /// row of NULLs stands for the missing collection: an unquantified comparison then compares
    /// NULL, as NSPredicate does through a nil key path (`team.owners.name != "x"` with no team
    /// is true). Rows start from `(SELECT 1)` and every step is a LEFT JOIN.
    func fromWhereComparingNullWhenMissing(_ condition: SQLFragment, anchor: String) -> SQLFragment {
        guard leadingToOne > 0, leadingToOne < steps.count else { return fromWhere(condition) }
        var sql = " FROM (SELECT 1) AS " + anchor
        for step in steps { sql += " LEFT JOIN " + step.table + " AS " + step.alias + " ON " + step.on }
        let missing = steps[leadingToOne - 1].presence + " IS NULL"
        let present = (steps.last?.presence ?? "1") + " IS NOT NULL"
        return SQLFragment(sql + " WHERE (" + missing + " OR " + present + ") AND ") + condition
    }
}
