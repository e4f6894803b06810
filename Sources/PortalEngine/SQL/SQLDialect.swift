import PortalPredicate

/// How a database engine spells SQL text around the statements: identifiers, parameters, the
/// row id, limits, upsert and `RETURNING`. Each part has the standard spelling as its default,
/// so that a dialect says only where its engine differs.
public protocol SQLSpelling: Sendable {
    /// `name` as an identifier (always quoted, so any name works and none is a keyword).
    func quoted(_ name: String) -> String
    /// Parameter `number` (from 1) as the database takes it, nil for `?` as the fragment wrote
    /// it. Each parameter's place is known from how the statement was built (`SQLFragment`):
    /// the text is never searched for them.
    func parameter(_ number: Int) -> String?
    /// The implicit row id column, when the engine has one (SQLite's `rowid`).
    var rowidColumn: String? { get }
    /// `LIMIT … OFFSET …` with the values bound (empty when both are nil).
    func limit(_ limit: Int?, offset: Int?) -> SQLFragment
    /// What follows `INSERT … VALUES (…)` to update the row whose `key` already exists.
    func onConflict(key: [String], update columns: [String]) -> String
    /// What ends a write statement that returns the rows it wrote.
    var returningAll: String { get }
    /// What precedes a query to have the database describe its plan instead of running it.
    var queryPlanPrefix: String { get }
    /// The most values one statement may bind, when the engine knows it (nil: the server says).
    var maximumBindings: Int? { get }
}

extension SQLSpelling {
    /// In double quotes, inner quotes doubled: SQL's standard, which SQLite and PostgreSQL keep.
    public func quoted(_ name: String) -> String {
        // Names rarely hold a quote: skip the character loop then.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var result = "\""
        for character in name {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result + "\""
    }

    /// `?` as written.
    public func parameter(_ number: Int) -> String? { nil }
    /// None.
    public var rowidColumn: String? { nil }

    /// `LIMIT ?` and `OFFSET ?`, each when given.
    public func limit(_ limit: Int?, offset: Int?) -> SQLFragment {
        var fragment = SQLFragment("")
        if let limit { fragment = fragment + " LIMIT " + .bound(.integer(Int64(max(limit, 0)))) }
        if let offset { fragment = fragment + " OFFSET " + .bound(.integer(Int64(offset))) }
        return fragment
    }

    /// ` ON CONFLICT (key) DO UPDATE SET c = excluded.c, …`.
    public func onConflict(key: [String], update columns: [String]) -> String {
        " ON CONFLICT (\(key.map(quoted).joined(separator: ", "))) DO UPDATE SET "
            + columns.map { "\(quoted($0)) = excluded.\(quoted($0))" }.joined(separator: ", ")
    }

    /// ` RETURNING *`.
    public var returningAll: String { " RETURNING *" }
    /// `EXPLAIN `.
    public var queryPlanPrefix: String { "EXPLAIN " }
    /// Unknown: the server says.
    public var maximumBindings: Int? { nil }

    /// A finished statement's text with its parameters as the database takes them (statement
    /// values give theirs so: `Select.rendered(in:)`).
    public func numbered(_ statement: SQLFragment) -> SQLFragment {
        guard parameter(1) != nil else { return statement }
        return statement.numberingParameters { parameter($0) ?? "?" }
    }

    /// A table as SQL names it: quoted, after its quoted schema when it has one
    /// (`"sales"."OrderLines"`).
    public func quoted(table: String, in namespace: String?) -> String {
        guard let namespace else { return quoted(table) }
        return quoted(namespace) + "." + quoted(table)
    }
}

/// How SQL text is spelled for one database engine: its `SQLSpelling`, and how the language's
/// predicates become SQL there. Statements (`Select`, `Insert`, `Upsert`, `Update`, `Delete`)
/// and compiled predicates are rendered through a dialect, and nothing else in the engine
/// spells SQL: for predicates, booleans, negation, null-safe comparison, case and diacritic
/// folding, collations, the text tests (LIKE with `*`/`?`, regular expressions), type tests,
/// casts and functions. SQLite's (PortalSQLite's `SQLiteDialect`) is the first implementation.
///
/// The language's meaning is the in-memory evaluator's (PortalPredicate): a dialect renders SQL
/// that gives the same rows, which the differential tests check.
public protocol SQLDialect: SQLSpelling {
    // MARK: Compiled predicates

    /// A condition that is always true, or always false.
    func boolean(_ value: Bool) -> String
    /// True when `condition` is false or NULL: `NOT` would keep NULL, which NSPredicate's
    /// two-valued logic has not.
    func isNotTrue(_ condition: SQLFragment) -> SQLFragment
    /// `left` equal to `right` (or, `negated`, not equal), NULL equal to NULL (`nil == nil`).
    func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment, negated: Bool) -> SQLFragment
    /// `value` with its text folded as `[c]` (flag 1) and `[d]` (flag 2) ask; other values unchanged.
    func folded(_ value: SQLFragment, _ flags: Int) -> SQLFragment
    /// `folded(value, flags) = folded(text, flags)` for a text literal `text`: a dialect may
    /// compare the folds without making the folded text of every row.
    func foldedEqual(_ value: SQLFragment, _ text: SQLFragment, flags: Int) -> SQLFragment
    /// `value` compared in Unicode collation order (`[l]`).
    func localeOrdered(_ value: SQLFragment) -> SQLFragment
    /// `value` compared by its bytes, the order a plain index of a text column keeps.
    func byteOrdered(_ value: SQLFragment) -> SQLFragment
    /// `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE` (with `*` and `?`) or `MATCHES` (an ICU regular
    /// expression matching the whole text) of `text` and `pattern`, folded by `flags`.
    func textTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment, flags: Int) -> SQLFragment
    /// A case-sensitive `CONTAINS` or `ENDSWITH` of a text column and a literal of `byteCount`
    /// UTF-8 bytes without a function call, or nil where the dialect has no such form.
    func plainTextTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment,
                       byteCount: Int) -> SQLFragment?
    /// True when `value` holds a number (integer or real) in this row.
    func isNumber(_ value: SQLFragment) -> SQLFragment
    /// `value` compared as a plain value, without the type affinity of the column it comes from.
    func withoutAffinity(_ value: SQLFragment) -> SQLFragment
    /// The value where it is a number (integer or real) in this row, else NULL; a number to
    /// compute with whatever the column's type.
    func numberOrNull(_ value: SQLFragment) -> SQLFragment
    /// `column` (of the declared type) as a value `min`, `max` and grouping take, as the engine
    /// reads it back: a boolean as 1 or 0, a UUID as its text.
    func comparable(_ column: String, declaredType: String) -> String
    /// The smaller of two values (SQLite's two-argument `min`).
    func least(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment
    /// A number's integer part (towards zero), as an integer.
    func integerPart(_ value: SQLFragment) -> SQLFragment
    /// The number of characters of a value's text.
    func textLength(_ value: SQLFragment) -> SQLFragment
    /// ` ASC` or ` DESC`, with NULL first in ascending order (SQLite's order) where the value may
    /// be NULL (saying so of a NOT NULL key can keep a server from reading it by its index).
    func direction(ascending: Bool, nullable: Bool) -> String
    /// `left / right` in floating point; NULL when `right` is 0 (as SQLite gives).
    func realDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment
    /// `&`, `|`, `^`, `<<` or `>>` as SQLite computes them: on the operands truncated to 64-bit
    /// integers; a negative shift shifts the other way; a shift of 64 or more gives 0 (or -1).
    func bitwise(_ left: SQLFragment, _ op: ArithmeticOperator, _ right: SQLFragment) -> SQLFragment
    /// `value` as text (`CAST(…, "NSString")`) or as a number (`"NSNumber"`).
    func cast(_ value: SQLFragment, toText: Bool) -> SQLFragment
    /// The SQL function of one of the language's functions (`lowercase`, `sqrt`, `pow`, …).
    func function(_ name: String) -> String?
    /// A date of the language (`seconds` since 1970) compared with a column declared
    /// `declaredType`, where the column's type says how it holds dates (a server's `timestamp`);
    /// nil where the values decide, row by row (`Dates.sql`).
    func date(_ seconds: Double, comparedWithColumnOf declaredType: String) -> SQLFragment?
    /// Whether the database reads date text without an offset in its session's time zone (a
    /// server's `timestamptz`), so that the engine's own dates (UTC) are written with `+00`.
    var readsOffsetlessDatesInSessionZone: Bool { get }
    /// A number literal (`literal` is its bound parameter) as an operand of arithmetic: a
    /// dialect whose parameters have types gives it one (`1000 * 60` has no other side to take
    /// it from).
    func arithmeticOperand(_ literal: SQLFragment, _ value: Value) -> SQLFragment
    /// `value` equal to one of `literals` (integers, reals or texts, no NULL), in one condition
    /// that needs fewer parameters than the values, or nil for `IN (…)` with one each.
    func membership(_ value: SQLFragment, inLiterals literals: [Value]) -> SQLFragment?

    // MARK: Collections and JSON inside a column

    /// The elements of a collection held by a column of `declaredType` (a server's array, a JSON
    /// array) as rows: the FROM item that lists those of `column` (none for NULL or a value that
    /// is no array), and the column of the item that holds the element (nil: the one column the
    /// item takes its name for); nil when such a column holds no collection here.
    func collectionElements(_ column: String, declaredType: String) -> (from: String, valueColumn: String?)?
    /// The value at `keys` inside the JSON document a column of `declaredType` holds, as the
    /// language compares it with `literal`: a number with a number, a text with a text (nil: as
    /// the database gives it); NULL where the document has no such key or another kind of value
    /// there. Nil when such a column holds no JSON here. `keys` are names of the predicate, as
    /// column names are, written into the SQL as string literals.
    func jsonValue(_ column: String, declaredType: String, keys: [String], comparedWith literal: Value?) -> SQLFragment?

    // MARK: Storage conventions

    /// A date held as Unix seconds by `column` (an expression without parameters), as the
    /// engine's date text (`yyyy-MM-dd HH:mm:ss[.SSS]`, UTC).
    func dateText(unixSeconds column: String) -> String
    /// The date `column` holds (ISO text, or Unix seconds) as a fractional day number (a Julian
    /// day); NULL where the value is no date.
    func dayNumber(_ column: String) -> String
    /// A UUID held as a 16-byte blob by `column`, as its text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`,
    /// as `UUID.uuidString` writes it);
    /// other values unchanged.
    func uuidText(_ column: String) -> String
    /// Why the database's parser would refuse `sql` for its nesting (its stack or depth
    /// limits), nil when it takes it or the dialect cannot tell (the database then says).
    func nestingProblem(in sql: String) -> String?
}

extension SQLDialect {
    /// None: the values decide.
    public func date(_ seconds: Double, comparedWithColumnOf declaredType: String) -> SQLFragment? { nil }
    /// No: date text is text (SQLite).
    public var readsOffsetlessDatesInSessionZone: Bool { false }
    /// The literal as it is.
    public func arithmeticOperand(_ literal: SQLFragment, _ value: Value) -> SQLFragment { literal }
    /// None: `IN (…)`.
    public func membership(_ value: SQLFragment, inLiterals literals: [Value]) -> SQLFragment? { nil }
    /// The database says.
    public func nestingProblem(in sql: String) -> String? { nil }

    /// Both sides folded, then `=`.
    public func foldedEqual(_ value: SQLFragment, _ text: SQLFragment, flags: Int) -> SQLFragment {
        folded(value, flags) + " = " + folded(text, flags)
    }
}

/// `text` as an SQL string literal (single quotes, inner ones doubled), as SQLite and
/// PostgreSQL (with its standard_conforming_strings) read it.
public func stringLiteral(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

/// True for a declared type of JSON documents (`JSON`, `jsonb`).
public func declaresJSON(_ declaredType: String) -> Bool {
    let lowered = declaredType.lowercased()
    return lowered == "json" || lowered == "jsonb"
}
