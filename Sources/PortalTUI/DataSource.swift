import PortalEngine

/// Where the browser gets its entities, pages and counts, and sends its writes.
///
/// The model never touches SQLite: everything goes through this protocol, so tests can drive the
/// model with an in-memory source and the real program with the engine-backed one.
/// Implementations must be safe to call from a background thread (counts run there).
public protocol BrowserDataSource: AnyObject, Sendable {
    /// Every entity the browser can open, in display order.
    func entities() throws -> [BrowserEntity]
    /// One page of rows in display order, fetched by key (sort value, primary id) — never OFFSET.
    func page(_ request: PageRequest) throws -> [BrowserRow]
    /// The number of rows matching `filter`; when `budget` runs out first, `.atLeast(n)`.
    /// `nil` budget: count to the end (used in the background).
    func count(entity: String, filter: String, budget: Duration?) throws -> RowCount
    /// One page of `request.column`'s frequency table over the rows matching the filter: each
    /// value and its count, most frequent first, paged by key (count, value) — never OFFSET.
    func frequencies(_ request: FrequencyRequest) throws -> [FrequencyRow]
    /// The number of distinct values of `column` (NULL counting as one) among the rows matching
    /// `filter`; when `budget` runs out first, `.atLeast(n)`.
    func countValues(entity: String, filter: String, column: String, budget: Duration?) throws -> RowCount
    /// The statistics of `column` over the rows matching `filter`, with a histogram for numbers
    /// and dates (slow on a large table: the browser calls it in the background).
    func statistics(entity: String, filter: String, column: String) throws -> ColumnSummary
    /// Why `filter` is not a valid predicate for `entity`, or nil when it is.
    func validate(entity: String, filter: String) -> BrowserError?
    /// Inserts one entity (one transaction); attributes left out take their defaults.
    func create(entity: String, values: [(String, Value)]) throws -> BrowserRow
    /// Sets one attribute of the entity with this id (one transaction); returns the row as stored.
    func update(entity: String, id: [Value], column: String, value: Value) throws -> BrowserRow
    /// Deletes the entity with this id (one transaction).
    func delete(entity: String, id: [Value]) throws
    /// Puts back the entity with this id that `delete` removed, as it was stored (one
    /// transaction); `values` are its attributes as shown, for a source that keeps nothing of
    /// what it deletes. Returns the row as stored.
    func restore(entity: String, id: [Value], values: [(String, Value)]) throws -> BrowserRow
    /// A number that changes whenever the database changes (this session, a script, another process).
    func changeToken() -> UInt64
    /// Interrupts a running count or query, if any.
    func cancel()
    /// Runs `body`, whose calls on this thread then all see one state of the database (one read
    /// transaction): opening reads the entity list and the first page together. Returns, with
    /// `body`'s result, the change token of that state (or of one before it).
    func consistently<T>(_ body: () throws -> T) throws -> (T, token: UInt64)
}

extension BrowserDataSource {
    /// Sources without transactions (or whose queries run on other threads) just run `body`,
    /// the token taken first: a change while it runs then shows as one, never goes unseen.
    public func consistently<T>(_ body: () throws -> T) throws -> (T, token: UInt64) {
        let token = changeToken()
        return (try body(), token)
    }

    /// Sources that cannot group say so.
    public func frequencies(_ request: FrequencyRequest) throws -> [FrequencyRow] {
        throw BrowserError("frequency tables are not available here")
    }
    public func countValues(entity: String, filter: String, column: String, budget: Duration?) throws -> RowCount {
        throw BrowserError("counting values is not available here")
    }
    public func statistics(entity: String, filter: String, column: String) throws -> ColumnSummary {
        throw BrowserError("statistics are not available here")
    }
}

/// A table or view as the browser shows it.
public struct BrowserEntity: Sendable, Hashable {
    public var name: String
    public var columns: [BrowserColumn]
    /// Views (and entities without any identity) cannot be edited.
    public var isReadOnly: Bool
    /// The names of the columns that identify one row (the declared key, else `rowid`).
    public var idColumns: [String]
    /// The to-one and to-many relationships, for the record view.
    public var relationships: [BrowserRelationship]

    public init(name: String, columns: [BrowserColumn], isReadOnly: Bool = false, idColumns: [String],
                relationships: [BrowserRelationship] = []) {
        self.name = name
        self.columns = columns
        self.isReadOnly = isReadOnly
        self.idColumns = idColumns
        self.relationships = relationships
    }
}

/// A relationship as the record view lists it and `f` follows it: the related rows are those
/// of `destination` whose `destinationColumns` equal this row's `sourceColumns`, pairwise.
public struct BrowserRelationship: Sendable, Hashable {
    public var name: String
    public var isToMany: Bool
    public var destination: String
    public var sourceColumns: [String]
    public var destinationColumns: [String]
    /// For a relationship whose joining columns are not attributes (a Core Data store's keys,
    /// a join table), the destination's relationship back to this entity (`isToMany` says which
    /// kind): the related rows are found through it. Nil otherwise.
    public var inverse: (name: String, isToMany: Bool)?

    public init(name: String, isToMany: Bool, destination: String, sourceColumns: [String], destinationColumns: [String],
                inverse: (name: String, isToMany: Bool)? = nil) {
        self.name = name
        self.isToMany = isToMany
        self.destination = destination
        self.sourceColumns = sourceColumns
        self.destinationColumns = destinationColumns
        self.inverse = inverse
    }

    public static func == (a: BrowserRelationship, b: BrowserRelationship) -> Bool {
        a.name == b.name && a.isToMany == b.isToMany && a.destination == b.destination && a.sourceColumns == b.sourceColumns
            && a.destinationColumns == b.destinationColumns && a.inverse?.name == b.inverse?.name
            && a.inverse?.isToMany == b.inverse?.isToMany
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(destination)
        hasher.combine(sourceColumns)
        hasher.combine(inverse?.name)
    }
}

/// One attribute shown as a grid column.
public struct BrowserColumn: Sendable, Hashable {
    public var name: String
    public var declaredType: String
    public var isKey: Bool
    /// The entity and attribute this column refers to (a single-column foreign key), if any.
    public var reference: BrowserReference?
    /// A generated column (`GENERATED ALWAYS AS …`): shown, never written.
    public var isGenerated: Bool

    public init(name: String, declaredType: String = "", isKey: Bool = false, reference: BrowserReference? = nil,
                isGenerated: Bool = false) {
        self.name = name
        self.declaredType = declaredType
        self.isKey = isKey
        self.reference = reference
        self.isGenerated = isGenerated
    }

    /// True when SQLite gives the column numeric affinity (so numbers align right).
    public var isNumeric: Bool {
        let t = declaredType.uppercased()
        return t.contains("INT") || t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB")
            || t.contains("NUM") || t.contains("DEC")
    }

    /// True when the column is declared an exact decimal (`numeric`, `decimal`), which
    /// PostgreSQL keeps digit for digit.
    public var holdsExactDecimals: Bool {
        let t = declaredType.lowercased()
        return t.hasPrefix("numeric") || t.hasPrefix("decimal")
    }
}

public struct BrowserReference: Sendable, Hashable {
    public var entity: String
    public var column: String
    public init(entity: String, column: String) {
        self.entity = entity
        self.column = column
    }
}

/// One row: its identity and its values, one per column.
public struct BrowserRow: Sendable, Hashable {
    /// The row as its page's query returned it, sharing the page's one storage (a page of rows
    /// is one allocation, not one per row): the rowid first when it is the id (it is no
    /// column), then one value per column.
    private var row: Row
    /// How many of `row`'s first values are the rowid rather than columns.
    private var leading: Int
    private var identity: Identity

    /// Where the id comes from: the row's leading values (the rowid), values of its own, or the
    /// values at these positions — an array every row of a page shares, so that a page of rows
    /// whose key is among their columns (most tables, every view) makes no array per row.
    private enum Identity: Sendable {
        case leading
        case own([Value])
        case positions([Int])
    }

    public init(id: [Value], values: [Value]) {
        self.init(row: Self.row(values), idPositions: [])
        identity = .own(id)
    }

    /// A row identified by its values at `idPositions`.
    public init(values: [Value], idPositions: [Int]) {
        self.init(row: Self.row(values), idPositions: idPositions)
    }

    /// A row of a page identified by its values at `idPositions`.
    init(row: Row, idPositions: [Int]) {
        self.row = row
        leading = 0
        identity = .positions(idPositions)
    }

    /// A row of a page whose first `leading` values are its id (the rowid), the rest its columns.
    init(row: Row, leading: Int) {
        self.row = row
        self.leading = leading
        identity = .leading
    }

    private static func row(_ values: [Value]) -> Row {
        Row(columns: ColumnNames(values.indices.map { "\($0)" }), values: values)
    }

    /// The values, one per column (built on each call: `value(at:)` reads one without it).
    public var values: [Value] {
        get { (leading..<row.count).map(row.value(at:)) }
        set {
            if case .leading = identity { identity = .own(id) }
            row = Self.row(newValue)
            leading = 0
        }
    }

    /// How many values the row has.
    public var count: Int { row.count - leading }

    /// The value of column `column`, nil when the row has no such column.
    public func value(at column: Int) -> Value? {
        guard column >= 0, column < count else { return nil }
        return row.value(at: leading + column)
    }

    /// The values that identify the row (the declared key, else the rowid).
    public var id: [Value] {
        get {
            switch identity {
            case .leading: return (0..<leading).map(row.value(at:))
            case .own(let id): return id
            case .positions(let positions): return positions.map { value(at: $0) ?? .null }
            }
        }
        set { identity = .own(newValue) }
    }

    public static func == (a: BrowserRow, b: BrowserRow) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a.value(at: $0) == b.value(at: $0) } && a.id == b.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for column in 0..<count { hasher.combine(value(at: column)) }
        hasher.combine(id)
    }
}

public enum BrowserSortDirection: Sendable, Hashable { case ascending, descending }

/// The grid's sort: one column, then the primary id as the tie-breaker (always ascending).
public struct BrowserSort: Sendable, Hashable {
    public var column: String
    public var direction: BrowserSortDirection
    public init(column: String, direction: BrowserSortDirection) {
        self.column = column
        self.direction = direction
    }
}

/// Where a page starts, by key.
public enum PageAnchor: Sendable, Hashable {
    case first
    case last
    /// Rows strictly after this one in display order.
    case after(BrowserRow)
    /// Rows strictly before this one; returned in display order.
    case before(BrowserRow)
    /// This row (if it still exists) and those after it.
    case atOrAfter(BrowserRow)
}

public struct PageRequest: Sendable, Hashable {
    public var entity: String
    public var filter: String
    public var sort: BrowserSort?
    public var anchor: PageAnchor
    public var limit: Int
    public init(entity: String, filter: String, sort: BrowserSort?, anchor: PageAnchor, limit: Int) {
        self.entity = entity
        self.filter = filter
        self.sort = sort
        self.anchor = anchor
        self.limit = limit
    }
}

/// A row count, exact or a lower bound while counting goes on.
public enum RowCount: Sendable, Hashable {
    case exact(Int)
    case atLeast(Int)

    /// How the status line and the entity list show it.
    public var label: String {
        switch self {
        case .exact(let n): return "\(n)"
        case .atLeast(let n): return "≥ \(n)"
        }
    }
}

/// The browser's one error type: what went wrong in words meant for the status line, where in
/// the filter's text it is (characters) when it is about the filter, and the engine's error
/// behind it (its kind, the database's code, the predicate error) when there is one.
public struct BrowserError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    /// Where in the filter's text, in characters from its start.
    public var range: Range<Int>?
    /// The engine's error this one reports.
    public var cause: PortalError?
    public init(_ message: String, range: Range<Int>? = nil, cause: PortalError? = nil) {
        self.message = message
        self.range = range
        self.cause = cause
    }
    public var description: String { message }

    /// Any error as the browser reports it: a `BrowserError` as it is, an engine error in its
    /// own words and kept as the cause.
    public static func from(_ error: any Error) -> BrowserError {
        switch error {
        case let error as BrowserError: error
        case let error as PortalError: BrowserError(error.description, cause: error)
        case let error as PortalPredicateError: BrowserError(error.description, cause: PortalError(wrapping: error))
        default: BrowserError(String(describing: error))
        }
    }
}

/// What a call that has not finished yet is doing, for the status line.
public enum BrowserBusy: Sendable, Hashable {
    /// It runs longer than a moment (a sort or a filter over a large table).
    case working
    /// A write waits for another process's lock.
    case waitingForLock
}

/// Tab's completion in the filter: given the entity and the filter's text before the caret,
/// where the word being completed starts (in characters) and its candidates. Called on the
/// browser's thread only.
public typealias FilterCompleter = (_ entity: String, _ textBeforeCaret: String) -> (start: Int, candidates: [String])
