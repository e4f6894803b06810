import Foundation
import PortalEngine

/// Live refresh by `LISTEN/NOTIFY`, where the user lets the shell create triggers (`notify on`):
/// a statement trigger on each table of the schemas read notifies the channel `portal_change` with the
/// table's name when a transaction that changed it commits. A store whose every table notifies
/// learns of other sessions' commits from a listening connection of its own, without a query,
/// and only of commits to its own tables; elsewhere it polls the server's change marker, which
/// moves with any write to the cluster.
public enum ChangeNotifications {
    /// The channel the triggers notify.
    static let channel = "portal_change"
    /// The name of the trigger function and of the trigger on each table.
    static let name = "portal_notify_change"

    /// The tables and partitions of the schemas read (`PostgresCatalog.usableSchemas`), by
    /// schema and name, each with whether it notifies.
    private static let tablesSQL = """
        SELECT n.nspname, c.relname, EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t
                                  WHERE t.tgrelid = c.oid AND t.tgname = '\(name)' AND t.tgenabled <> 'D')
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relnamespace IN (\(PostgresCatalog.usableSchemas)) AND c.relkind IN ('r', 'p')
        ORDER BY 1, 2
        """

    /// Relations whose content changes without a trigger of the schemas firing (materialized
    /// views refreshed, foreign tables written elsewhere, views reading a relation of a schema
    /// not read): where there are any, notifications cannot tell every change.
    private static let untriggerableSQL = """
        SELECT count(*) FROM pg_catalog.pg_class c
        WHERE c.relnamespace IN (\(PostgresCatalog.usableSchemas))
          AND (c.relkind IN ('m', 'f')
               OR (c.relkind = 'v' AND EXISTS (
                   SELECT 1 FROM pg_catalog.pg_rewrite r
                   JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = r.oid
                   JOIN pg_catalog.pg_class t ON d.refclassid = 'pg_catalog.pg_class'::regclass AND t.oid = d.refobjid
                   WHERE r.ev_class = c.oid AND t.relnamespace NOT IN (\(PostgresCatalog.usableSchemas)))))
        """

    /// Creates the trigger function and a trigger on each table that has none, in the write
    /// (all or nothing: a table the role may not add triggers to fails it, with the server's
    /// reason). Returns how many tables were given one.
    @discardableResult
    public static func install(in context: WriteContext) throws -> Int {
        try context.execute("""
            CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('\(channel)', TG_TABLE_NAME); RETURN NULL; END $$
            """)
        let missing = try tables { try context.query($0).rows.map(\.values) }.filter { !$0.notifies }
        for table in missing {
            try context.execute("CREATE TRIGGER \(name) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "
                                + PostgresDialect().quoted(table: table.name, in: table.schema)
                                + " FOR EACH STATEMENT EXECUTE FUNCTION \(name)()")
        }
        return missing.count
    }

    /// Drops every table's trigger and the function, in the write. Returns how many tables had
    /// one.
    @discardableResult
    public static func remove(in context: WriteContext) throws -> Int {
        let notifying = try tables { try context.query($0).rows.map(\.values) }.filter(\.notifies)
        for table in notifying {
            try context.execute("DROP TRIGGER \(name) ON " + PostgresDialect().quoted(table: table.name, in: table.schema))
        }
        try context.execute("DROP FUNCTION IF EXISTS \(name)()")
        return notifying.count
    }

    /// True when every change to the schema's tables is notified: there is a table, each
    /// notifies, and no relation changes without a trigger.
    static func notifiesEveryChange(on connection: PostgresConnection) throws -> Bool {
        let all = try tables { try connection.rows($0).map(\.values) }
        guard !all.isEmpty, all.allSatisfy(\.notifies) else { return false }
        return try connection.scalar(untriggerableSQL) == .integer(0)
    }

    /// The tables, read by `rows` (a context's or a connection's).
    private static func tables(_ rows: (String) throws -> [[Value]]) throws -> [(schema: String, name: String, notifies: Bool)] {
        try rows(tablesSQL).compactMap { row in
            guard row.count == 3, case .text(let schema) = row[0], case .text(let table) = row[1] else { return nil }
            return (schema, table, row[2] == .integer(1))
        }
    }
}

/// A store's listening connection (its `PostgresServer`'s), opened on first use once the schema
/// read last shows a table with the trigger (none is opened where no table notifies: the
/// common case, which polls), listening while every table notifies. Whether they do is looked at
/// again at most once a second, on a queue of its own: the caller (the browser drawing a page)
/// never waits for the connection or the catalog, and gets the last marker known meanwhile (an
/// older marker only brings a refresh later).
final class ChangeListener: @unchecked Sendable {
    private let conninfo: String
    private let queue = DispatchQueue(label: "portal.postgres.listener")
    /// Guards everything below; the connection is used under it only. Held across the look, so
    /// `marker` only tries it.
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private var isListening = false
    private var lastLook: ContinuousClock.Instant?
    private var isLooking = false
    /// Notifications received, plus one for each connection made (a lost connection may have
    /// missed some).
    private var received: UInt64 = 0
    /// The last marker `marker` returned or the look left, for callers that find the lock taken
    /// (guarded by `publishedLock`).
    private var published: Value?
    private let publishedLock = NSLock()
    /// False while the schema read last has no table with the trigger (guarded by `publishedLock`).
    private var mayNotify = false

    init(conninfo: String) {
        self.conninfo = conninfo
    }

    /// The count of notifications received so far, as a marker; nil while not every change is
    /// notified (or the server cannot be reached, or has not been asked yet), when the change
    /// marker must be polled.
    func marker() -> Value? {
        guard lock.try() else { return publishedLock.withLock { published } }
        defer { lock.unlock() }
        guard publishedLock.withLock({ mayNotify }) else {
            if connection != nil { drop() }
            return nil
        }
        lookAgainIfDue()
        var marker: Value?
        if isListening, let connection {
            if let count = connection.takeNotifications() {
                received &+= UInt64(count)
                marker = .text("notified \(received)")
            } else {
                drop()
            }
        }
        publishedLock.withLock { published = marker }
        return marker
    }

    /// Learns from a schema just read whether any table has the trigger.
    func note(_ schema: Schema) {
        let notifying = schema.entities.contains { $0.triggers.contains { $0.name == ChangeNotifications.name } }
        publishedLock.withLock {
            mayNotify = notifying
            if !notifying { published = nil }
        }
    }

    /// Starts a look on the queue when the last is a second old (under `lock`).
    private func lookAgainIfDue() {
        let now = ContinuousClock.now
        if isLooking { return }
        if let lastLook, now - lastLook < .seconds(1) { return }
        lastLook = now
        isLooking = true
        queue.async { [weak self] in self?.look() }
    }

    /// Connects, and listens or stops listening as every table does or does not notify.
    private func look() {
        lock.lock()
        defer {
            isLooking = false
            lock.unlock()
        }
        do {
            let connection = try self.connection ?? PostgresConnection(conninfo, readOnly: true)
            if self.connection == nil {
                self.connection = connection
                received &+= 1
            }
            let notifies = try ChangeNotifications.notifiesEveryChange(on: connection)
            if notifies != isListening {
                try connection.execute((notifies ? "LISTEN " : "UNLISTEN ") + ChangeNotifications.channel)
                isListening = notifies
            }
        } catch {
            drop()
        }
        if !isListening { publishedLock.withLock { published = nil } }
    }

    private func drop() {
        connection?.close()
        connection = nil
        isListening = false
    }

    deinit { connection?.close() }
}
