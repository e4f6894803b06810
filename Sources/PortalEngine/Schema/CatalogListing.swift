/// What a database lists besides its entities, as psql's `\dn` and `\l` and sqlite3's
/// `.databases` do: each backend answers with a query of its catalog (`DatabaseServer.listing`;
/// SQLite's below).
public enum CatalogListing: Sendable {
    /// Each schema (on SQLite, each database of the connection): `schema`, `owner`, `entities`
    /// (tables and views) and `search_order`, its place in the search for unqualified names.
    case schemas
    /// The databases: on a server, those that take connections (`database`, `owner`,
    /// `encoding`, `collation`, `current`); on SQLite, the connection's (`database`, `file`).
    case databases

    /// SQLite's query. SQLite looks for an unqualified name in `temp`, then `main`, then each
    /// attached database in the order attached.
    package var sqliteSQL: String {
        switch self {
        case .schemas:
            """
            SELECT d.name AS schema, NULL AS owner,
                   CASE d.name WHEN 'main' THEN (SELECT count(*) FROM main.sqlite_schema
                                                 WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\')
                               WHEN 'temp' THEN (SELECT count(*) FROM temp.sqlite_schema WHERE type IN ('table', 'view')) END
                       AS entities,
                   CASE d.name WHEN 'temp' THEN 1 WHEN 'main' THEN 2 ELSE d.seq + 1 END AS search_order
            FROM pragma_database_list AS d ORDER BY 4
            """
        case .databases:
            "SELECT name AS database, file FROM pragma_database_list ORDER BY seq"
        }
    }
}

extension Store {
    /// The query (without parameters) that lists `listing` on this store's database.
    public func sql(listing: CatalogListing) -> String {
        backend.listing(listing)
    }
}
