import PortalEngine

/// What psql users list with `\dn`, `\l` and `\d NAME`, as commands of the shell: `schemas`,
/// `databases` and `describe E`, on every kind of database.
extension Executor {
    /// `schemas` and `databases`: the store's catalog query for them (`CatalogListing`).
    func list(_ listing: CatalogListing) throws {
        let database = try requireDatabase()
        try render(CompiledQuery(sql: database.store.sql(listing: listing), bindings: []), to: output, options: options)
    }

    /// `describe E`: the entity as psql's `\d` shows a table: its columns, indexes,
    /// constraints, the entities that refer to it, and its triggers.
    func describe(_ name: Located<String>) throws {
        var report = SchemaReport(entity: try entity(name))
        report.view = .description
        report.hasRowids = try requireDatabase().store.dialect.rowidColumn != nil
        try schema([report], single: true)
    }
}
