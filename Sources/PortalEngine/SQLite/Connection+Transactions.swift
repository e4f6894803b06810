// SQLite's transaction control for the connection protocol.

extension Connection: DatabaseConnection {
    /// `BEGIN DEFERRED` or `BEGIN IMMEDIATE`.
    public func begin(_ start: TransactionStart) throws {
        try run(start == .immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
    }

    /// `COMMIT`.
    public func commit() throws { try run("COMMIT") }

    /// `ROLLBACK`.
    public func rollback() throws { try run("ROLLBACK") }

    /// `SAVEPOINT name` (the name is the engine's own, never user input).
    public func savepoint(_ name: String) throws { try run("SAVEPOINT " + SQLiteDialect().quoted(name)) }

    /// `RELEASE name`.
    public func release(savepoint name: String) throws { try run("RELEASE " + SQLiteDialect().quoted(name)) }

    /// `ROLLBACK TO name`.
    public func rollback(toSavepoint name: String) throws { try run("ROLLBACK TO " + SQLiteDialect().quoted(name)) }
}

extension Statement: DatabaseStatement {}
