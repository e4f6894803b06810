import PortalEngine
import PortalPostgres

/// What psql users list with `\dn`, `\l` and `\d NAME`, as commands of the shell: `schemas`,
/// `databases` and `describe E`, on every kind of database.
extension Executor {
    /// `schemas`: each schema (on SQLite, each attached database), its owner, how many entities
    /// it holds, and where it comes in the search for unqualified names.
    func schemas() throws {
        let database = try requireDatabase()
        let sql = database.store.server is PostgresServer ? Self.postgresSchemas : Self.sqliteSchemas
        try render(CompiledQuery(sql: sql, bindings: []), to: output, options: options)
    }

    /// `databases`: on a server, its databases (the current one marked); on SQLite, the files of
    /// the connection (`main`, `temp`, attached), as sqlite3's `.databases`.
    func databases() throws {
        let database = try requireDatabase()
        let sql = database.store.server is PostgresServer ? Self.postgresDatabases : Self.sqliteDatabases
        try render(CompiledQuery(sql: sql, bindings: []), to: output, options: options)
    }

    /// `describe E`: the entity as psql's `\d` shows a table: its columns, indexes,
    /// constraints, the entities that refer to it, and its triggers.
    func describe(_ name: Located<String>) throws {
        var report = SchemaReport(entity: try entity(name))
        report.view = .description
        report.hasRowids = try requireDatabase().store.dialect.rowidColumn != nil
        try schema([report], single: true)
    }

    /// Search order: the search path's position (`current_schemas`); a schema off the path has none.
    private static let postgresSchemas = """
        SELECT n.nspname AS schema, pg_catalog.pg_get_userbyid(n.nspowner) AS owner,
               (SELECT count(*) FROM pg_catalog.pg_class c
                WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm')) AS entities,
               array_position(pg_catalog.current_schemas(false), n.nspname) AS search_order
        FROM pg_catalog.pg_namespace n WHERE n.oid IN (\(PostgresCatalog.usableSchemas))
        ORDER BY 4 NULLS LAST, 1
        """

    /// SQLite looks for an unqualified name in `temp`, then `main`, then each attached database
    /// in the order attached.
    private static let sqliteSchemas = """
        SELECT d.name AS schema, NULL AS owner,
               CASE d.name WHEN 'main' THEN (SELECT count(*) FROM main.sqlite_schema
                                             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\')
                           WHEN 'temp' THEN (SELECT count(*) FROM temp.sqlite_schema WHERE type IN ('table', 'view')) END
                   AS entities,
               CASE d.name WHEN 'temp' THEN 1 WHEN 'main' THEN 2 ELSE d.seq + 1 END AS search_order
        FROM pragma_database_list AS d ORDER BY 4
        """

    private static let postgresDatabases = """
        SELECT datname AS database, pg_catalog.pg_get_userbyid(datdba) AS owner,
               pg_catalog.pg_encoding_to_char(encoding) AS encoding, datcollate AS collation,
               CASE WHEN datname = pg_catalog.current_database() THEN 'yes' ELSE '' END AS current
        FROM pg_catalog.pg_database WHERE NOT datistemplate AND datallowconn ORDER BY 1
        """

    private static let sqliteDatabases = "SELECT name AS database, file FROM pragma_database_list ORDER BY seq"
}
