import PortalEngine

/// A name as typed, with where it was typed (character offsets in the command line), so that
/// errors about it can point at it.
public struct Located<T: Sendable & Equatable>: Sendable, Equatable {
    public var value: T
    public var range: Range<Int>
    public init(_ value: T, _ range: Range<Int>) {
        self.value = value
        self.range = range
    }
}

/// Predicate text taken verbatim from the command line, and where it starts there.
public struct PredicateText: Sendable, Equatable {
    public var text: String
    public var offset: Int
    public init(_ text: String, offset: Int) {
        self.text = text
        self.offset = offset
    }
}

/// A literal or variable on the right of `=` in `create`/`upsert`, or an id in `get`.
public enum Literal: Sendable, Equatable {
    case value(Value)
    case variable(String)
}

/// `KEY = EXPR` in `set`: the expression is kept as its text, an expression of the predicate
/// language compiled by the engine (`update` may use attributes: `Milliseconds + 1000`).
public struct Assignment: Sendable, Equatable {
    public var key: Located<String>
    public var value: PredicateText
}

/// `find`/`first`/`export`/`browse`: an entity, a filter, an order, a window.
public struct Query: Sendable, Equatable {
    public var entity: Located<String>
    /// `select …` (with `group by`, `having`): nil for every attribute of each entity.
    public var selection: SelectionClause?
    public var predicate: PredicateText?
    public var sort: [Located<SortKey>] = []
    public var limit: RowCount?
    public var offset: RowCount?
}

/// `select [distinct] ITEM [as NAME], … [group by KEY, …] [having P]`: each text with its offset
/// in the command, for carets.
public struct SelectionClause: Sendable, Equatable {
    public var items: [(expression: PredicateText, name: String?)]
    public var distinct = false
    public var groupBy: [PredicateText] = []
    public var having: PredicateText?

    public static func == (a: SelectionClause, b: SelectionClause) -> Bool {
        a.items.map(\.expression) == b.items.map(\.expression) && a.items.map(\.name) == b.items.map(\.name)
            && a.distinct == b.distinct && a.groupBy == b.groupBy && a.having == b.having
    }
}

/// A row count after `limit` or `offset`: a number, or a variable (`limit $n`) read when the
/// command runs.
public enum RowCount: Sendable, Equatable, ExpressibleByIntegerLiteral {
    case number(Int)
    case variable(Located<String>)
    public init(integerLiteral value: Int) { self = .number(value) }
}

/// The data formats of `import` and `export`.
public enum DataFormat: String, Sendable, Equatable, CaseIterable {
    case csv, tsv, json, ndjson
}

/// One command of the shell's language (the man page's COMMANDS).
public indirect enum Command: Sendable, Equatable {
    case find(Query)
    case first(Query)
    case count(Located<String>, PredicateText?)
    case get(Located<String>, [Literal])
    case explain(Command)
    case entities
    case schemas, databases
    case describe(Located<String>)
    /// `sql`: the CREATE statements instead of the description.
    case schema(Located<String>?, sql: Bool)
    case create(Located<String>, [Assignment])
    case update(Located<String>, [Assignment], PredicateText)
    case upsert(Located<String>, [Assignment])
    case delete(Located<String>, PredicateText)
    case importData(Located<String>, path: String, DataFormat?)
    case export(Query, path: String, DataFormat?)
    case begin, commit, rollback
    case setVariable(String, Literal)
    case variables
    case mode(OutputFormat)
    case headers(Bool)
    case null(String)
    case timer(Bool)
    /// `notify on|off`: PostgreSQL's change notifications installed or removed.
    case notify(Bool)
    /// nil: back to standard output.
    case output(String?)
    case read(String)
    case open(String)
    case browse(Query?)
    case generateSwift([Located<String>])
    case sql(String)
    /// `relate E.col -> F[.col]`: a relationship the database does not declare; nil: list them.
    case relate(Located<String>, Located<String>)
    case relations
    case unrelate(Located<String>)
    case help(String?)
    case quit
}
