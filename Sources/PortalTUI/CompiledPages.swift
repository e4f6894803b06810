import Foundation
import PortalEngine

/// What the browser derives from a store's schema — its entities as the browser shows them,
/// compiled filters and page statements — kept while the schema's version stays the same.
/// There is one for each store, shared by every data source on it: a new browser on a table
/// seen before (`browse` again in the shell) compiles nothing. Thread-safe: counts run on other
/// threads.
final class CompiledPages: @unchecked Sendable {
    private let lock = NSLock()
    /// The version everything kept was compiled at (guarded by `lock`, as the rest).
    private var version: Value?
    private var entities: [BrowserEntity]?
    private var filters: [FilterKey: (EntityDescription, SQLFragment?)] = [:]
    private var statements: [PageKey: SQLFragment] = [:]

    /// The compiled pages of `store`.
    static func of(_ store: Store) -> CompiledPages { store.attachment(CompiledPages.init) }

    struct FilterKey: Hashable {
        var entity: String
        var filter: String
    }

    /// What decides a page statement's text (its bindings aside).
    struct PageKey: Hashable {
        var version: Value
        var entity: String
        var filter: String
        var sort: BrowserSort?
        var shape: PageShape
        /// The keyset condition's text.
        var keyset: String
        var limit: Int
    }

    /// The entity and filter compiled for `key` at `version`, if kept; a new version forgets
    /// everything compiled at the old one.
    func filter(_ key: FilterKey, version: Value) -> (EntityDescription, SQLFragment?)? {
        lock.withLock {
            moveOn(to: version)
            return filters[key]
        }
    }

    /// The entities as of `version`, if kept.
    func entities(version: Value) -> [BrowserEntity]? {
        lock.withLock {
            moveOn(to: version)
            return entities
        }
    }

    /// Keeps the entities, unless the schema moved on meanwhile.
    func keep(_ entities: [BrowserEntity], version: Value) {
        lock.withLock {
            if version == self.version { self.entities = entities }
        }
    }

    /// Forgets everything kept when `version` is not the one it was derived at (lock held).
    private func moveOn(to version: Value) {
        guard version != self.version else { return }
        self.version = version
        entities = nil
        filters = [:]
        statements = [:]
    }

    /// Keeps a compiled filter, unless the schema moved on meanwhile.
    func keep(_ compiled: (EntityDescription, SQLFragment?), for key: FilterKey, version: Value) {
        lock.withLock {
            guard version == self.version else { return }
            if filters.count >= 64 { filters = [:] }   // typing makes one per keystroke: keep it bounded
            filters[key] = compiled
        }
    }

    func statement(_ key: PageKey) -> SQLFragment? {
        lock.withLock { statements[key] }
    }

    func keep(_ statement: SQLFragment, for key: PageKey) {
        lock.withLock {
            if statements.count >= 256 { statements = [:] }
            statements[key] = statement
        }
    }
}

/// Which kind of page a query fetches: with the keyset condition's text, it decides the SQL.
enum PageShape: Hashable { case first, last, after, atOrAfter, before }
