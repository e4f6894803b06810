/// Named, ordered schema migrations. Each runs once, in its own write transaction, and is
/// recorded in the table `portal_migrations`; a failing one is rolled back (alone) and stops
/// the run, leaving the ones before it applied.
///
///     var migrator = Migrator()
///     migrator.register("v1") { ctx in try ctx.execute("CREATE TABLE …") }
///     try migrator.migrate(store)
public struct Migrator {
    /// One migration: schema and data changes made through a write context, in one transaction.
    public typealias Migration = (WriteContext) throws -> Void

    static let table = "portal_migrations"
    private var migrations: [(name: String, body: Migration)] = []

    /// A migrator with no migrations yet.
    public init() {}

    /// Adds a migration after the ones registered before. Names must be unique.
    public mutating func register(_ name: String, _ body: @escaping Migration) {
        migrations.append((name, body))
    }

    /// The registered names, in order.
    public var names: [String] { migrations.map(\.name) }

    /// Applies the migrations not yet recorded in the store, in order; returns their names.
    @discardableResult
    public func migrate(_ store: Store) throws -> [String] {
        var seen: Set<String> = []
        for migration in migrations where !seen.insert(migration.name).inserted {
            throw PortalError.misuse("the migration '\(migration.name)' is registered twice")
        }
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE IF NOT EXISTS \(Self.table) (
                    name TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)
                """)
        }
        let done = Set(try appliedMigrations(store))
        var applied: [String] = []
        for migration in migrations where !done.contains(migration.name) {
            do {
                try store.write { ctx in
                    try migration.body(ctx)
                    try ctx.insert(Self.table, columns: ["name"], values: [.text(migration.name)])
                }
            } catch var error as PortalError {
                error.message = "migration '\(migration.name)' failed: \(error.message)"
                throw error
            }
            applied.append(migration.name)
        }
        return applied
    }

    /// The names of the migrations recorded in the store, in the order they were applied.
    public func appliedMigrations(_ store: Store) throws -> [String] {
        try store.read { ctx in
            guard let table = try ctx.schema.entity(named: Self.table) else { return [] }
            // SQLite's rowid is the order of insertion; a server's table has none, but each
            // migration commits on its own, so its time stamp is later than the one before.
            let order = store.dialect.rowidColumn ?? "applied_at"
            let dialect = store.dialect
            return try ctx.query("SELECT name FROM \(dialect.quoted(table.name)) ORDER BY \(order)").rows.compactMap { row in
                if case .text(let name) = row.value(at: 0) { return name }
                return nil
            }
        }
    }
}
