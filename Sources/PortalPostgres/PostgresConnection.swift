import CLibpqLoader
import Foundation
import Glibc
import PortalEngine
import PortalSQLite
import PortalPredicate

/// One connection to a PostgreSQL server through libpq, behind the engine's connection protocol.
///
/// Not thread-safe, like SQLite's connection: one thread at a time; `interrupt()` alone may be
/// called from any thread (it sends the server a cancel request).
public final class PostgresConnection: DatabaseConnection {
    /// libpq's functions (loaded on first use).
    let pq: portal_libpq
    private let connection: OpaquePointer
    /// The cancel request's target, replaced when the connection is made again (`reconnect`);
    /// `interrupt` reads it from other threads, under `cancelLock`.
    private var cancel: OpaquePointer?
    private let cancelLock = NSLock()
    /// True once `interrupt` sent a cancel request since the last command began: the server's
    /// "canceled" (SQLSTATE 57014) is then an interrupt, and otherwise its `statement_timeout`
    /// (or an administrator's cancel), which is a failure of the statement, not an interrupt.
    private var cancelRequested = false
    /// The server-side name of each statement prepared so far, by its text.
    private var prepared: [String: String] = [:]
    /// `loneParameters` of each text run so far.
    private var loneParameterIndexes: [String: [Int]] = [:]
    /// The outcome of the last command, for `changes`.
    var lastCommandChanges = 0 {
        didSet { totalChanges += lastCommandChanges }
    }
    /// The replies the connection has waited for: each command run, statement prepared or
    /// described, statement sent (those sent together in a pipeline count once). What tests
    /// measure a change to the protocol by; no timing is as steady.
    private(set) var roundTrips = 0
    /// Rows changed by every command since the connection opened.
    public private(set) var totalChanges = 0
    private var isClosed = false

    /// True for a reader: every transaction is read-only, and a read sees one snapshot.
    public let isReadOnly: Bool
    /// The search path of the store's connections (`SharedSearchPath`), and the generation of
    /// it this session has.
    private let sharedSearchPath: SharedSearchPath?
    private var searchPathTaken = 0

    /// Connects with a libpq connection string or URL (`postgresql://user@host/db`, `host=… dbname=…`);
    /// the usual `PG*` environment variables fill in what it leaves out. A `readOnly` connection
    /// (a reader) has the server refuse every write (`default_transaction_read_only`).
    public convenience init(_ conninfo: String, readOnly: Bool = false) throws {
        try self.init(conninfo, readOnly: readOnly, searchPath: nil)
    }

    /// A connection of a store, whose `search_path` it shares with the store's others.
    init(_ conninfo: String, readOnly: Bool, searchPath: SharedSearchPath?) throws {
        isReadOnly = readOnly
        sharedSearchPath = searchPath
        switch LibPQ.shared {
        case .success(let library): pq = library.functions
        case .failure(let error): throw error
        }
        guard let connection = pq.connectdb(conninfo) else {
            throw PortalError(.cannotOpen, "cannot connect to PostgreSQL: out of memory")
        }
        guard pq.status(connection) == CONNECTION_OK else {
            let message = Self.text(pq.errorMessage(connection))
            pq.finish(connection)
            throw PortalError(.cannotOpen, "cannot connect to PostgreSQL: " + message)
        }
        self.connection = connection
        // libpq prints notices, and a server's farewell that arrives while idle ("terminating
        // connection"), on standard error, over the browser's screen; the error that matters
        // comes with the next command.
        _ = pq.setNoticeProcessor(connection, { _, _ in }, nil)
        cancel = pq.getCancel(connection)
        try execute(sessionSettings)
        prepareChangeMarker()
    }

    /// The session's time zone is the server's, the role's or the database's, or `PGTZ`'s, as
    /// psql's is: `timestamptz` is shown in it with its offset, and text without an offset is
    /// read in it (the engine's own dates carry `+00`, `PostgresDialect.date`). Notices ("relation already exists,
    /// skipping") are not errors; a reader's transactions read only; the program's name as the
    /// session's `application_name` (in `pg_stat_activity`), unless the connection string or
    /// `PGAPPNAME` gave one.
    private var sessionSettings: String {
        "SET client_min_messages = warning" + (isReadOnly ? "; SET default_transaction_read_only = on" : "")
            + "; SELECT set_config('application_name', \(Self.applicationName), false) WHERE current_setting('application_name') = ''"
    }

    /// The program's name as an SQL string literal.
    private static let applicationName = "'" + ProcessInfo.processInfo.processName.replacingOccurrences(of: "'", with: "''") + "'"

    /// Prepares a reader's change marker, for each read transaction to learn it with its first
    /// statement (`snapshotChangeMarker`). A server without `pg_current_snapshot` (before
    /// PostgreSQL 13, CockroachDB) refuses it: its reads then go without.
    private func prepareChangeMarker() {
        guard isReadOnly else { return }
        let result = exec("PREPARE \(Self.changeMarkerName) AS \(Self.changeMarkerSQL)")
        changeMarkerPrepared = result.map { pq.resultStatus($0) == PGRES_COMMAND_OK } ?? false
        pq.clear(result)
    }
    private var changeMarkerPrepared = false

    /// The server's next transaction id, as text: it moves whenever any session of the cluster
    /// starts a transaction that writes (reading it takes none).
    static let changeMarkerSQL = "SELECT pg_snapshot_xmax(pg_current_snapshot())::text"
    private static let changeMarkerName = "portal_change_marker"

    /// The change marker (`changeMarkerSQL`) of the read transaction's snapshot, when it came with
    /// the transaction's first statement (`sendBehindReadBegunAhead`): the browser asks it with
    /// each page it opens, and it then costs no round trip of its own.
    private(set) var snapshotChangeMarker: Value?

    /// How many notifications (`LISTEN`) arrived since the last call: what the socket holds is
    /// read without waiting. Nil when the connection is lost.
    func takeNotifications() -> Int? {
        guard pq.consumeInput(connection) == 1, pq.status(connection) == CONNECTION_OK else { return nil }
        var count = 0
        while let notification = pq.notifies(connection) {
            count += 1
            pq.freemem(notification)
        }
        return count
    }

    /// Connects again after the server dropped the session (a restart, an administrator's
    /// terminate): the settings are made again, and statements prepared again on first use.
    private func reconnect() throws {
        pq.reset(connection)
        guard pq.status(connection) == CONNECTION_OK else {
            throw PortalError(.cannotOpen, "cannot connect to PostgreSQL again: " + Self.text(pq.errorMessage(connection)))
        }
        prepared = [:]
        searchPathTaken = 0
        readBegunAhead = false
        resultsPending = false
        syncPending = false
        endSentAlone = false
        cancelLock.withLock {
            if let cancel { pq.freeCancel(cancel) }
            cancel = pq.getCancel(connection)
        }
        let result = exec(sessionSettings)
        defer { pq.clear(result) }
        try check(result, sql: sessionSettings)
        prepareChangeMarker()
    }

    deinit { close() }

    /// Ends the session (idempotent).
    public func close() {
        endLock.withLock {
            guard !isClosed else { return }
            isClosed = true
            cancelLock.withLock {
                if let cancel { pq.freeCancel(cancel) }
                cancel = nil
            }
            pq.finish(connection)
        }
    }

    /// A statement of `sql`, prepared on the server when it first runs, with the parameter types
    /// of its values (errors surface then); later runs with the same text and types reuse it. The
    /// statement keeps its connection alive.
    public func prepare(_ sql: String) throws -> PostgresStatement {
        PostgresStatement(connection: self, sql: sql)
    }

    /// The statements cut where SQLite's rule ends one (`SQLStatements.split`, which reads
    /// PostgreSQL's escape and dollar-quoted strings too).
    public func forEachStatement(_ sql: String, _ body: (any DatabaseStatement) throws -> Void) throws {
        for text in SQLStatements.split(sql) { try body(try prepareUncached(text)) }
    }

    /// The server-side statement for `sql` with these parameter types (libpq's type ids, 0 for
    /// "infer"), prepared on first use.
    private func serverName(_ sql: String, types: [UInt32]) throws -> String {
        let key = Self.preparedKey(sql, types)
        if let name = prepared[key] { return name }
        try ready()
        let name = "portal_\(prepared.count + 1)"
        roundTrips += 1
        let result = types.allSatisfy { $0 == 0 } ? pq.prepare(connection, name, sql, 0, nil)
            : pq.prepare(connection, name, sql, Int32(types.count), types)
        defer { pq.clear(result) }
        try check(result, sql: sql)
        prepared[key] = name
        return name
    }

    /// The key of `prepared`: the text, and the parameter types when any is not inferred.
    private static func preparedKey(_ sql: String, _ types: [UInt32]) -> String {
        types.allSatisfy { $0 == 0 } ? sql : sql + "\u{0}" + types.map(String.init).joined(separator: ",")
    }

    /// The parameter types a run with `values` is prepared with. PostgreSQL infers a
    /// parameter's type from the other side of its comparison; a number with a fraction is
    /// typed (else `bigint_column > $1` would refuse 2.5): `numeric`, as psql's literal is, for
    /// a decimal and a finite real (its shortest text, which every double has: a `numeric`
    /// column compares with and stores every digit of it, where `float8` would be cut to 15, and
    /// a `float8` column takes it back as the same double), `float8` for what `numeric` has no
    /// value for: NaN, the infinities and -0.
    /// A parameter tested alone (`$1 IS NULL`), which has no other side, is typed by its value.
    /// The rest are inferred, so that a number column compared with "300000" compares with
    /// 300000 (as SQLite's affinity does) and 1 goes into a boolean.
    func parameterTypes(_ sql: String, _ values: [Value]) -> [UInt32] {
        var types = values.map { value -> UInt32 in
            switch value {
            case .real(let r): Self.numericHolds(r) ? 1700 : 701
            case .decimal: 1700
            default: 0
            }
        }
        for index in loneParameters(sql) where values.indices.contains(index) {
            types[index] = switch values[index] {
            case .integer: 20
            case .real(let r): Self.numericHolds(r) ? 1700 : 701
            case .decimal: 1700
            case .blob: 17
            case .text, .null: 25
            }
        }
        return types
    }

    /// Whether `numeric` has the double's value: not NaN, an infinity (before PostgreSQL 14) or
    /// -0 (numeric has no negative zero).
    static func numericHolds(_ r: Double) -> Bool { r.isFinite && !(r == 0 && r.sign == .minus) }

    /// The indexes of the parameters `sql` tests alone, found once per text (a statement run
    /// again and again, such as a page query, is not searched again).
    private func loneParameters(_ sql: String) -> [Int] {
        if let known = loneParameterIndexes[sql] { return known }
        let found = sql.matches(of: /\$([0-9]+) IS (NOT )?NULL/).compactMap { Int($0.output.1).map { $0 - 1 } }
        loneParameterIndexes[sql] = found
        return found
    }

    /// The columns `sql` returns, asked of the server before it runs: for a caller that asks
    /// before it binds values (a statement bound runs for them instead, `PostgresStatement`).
    func columns(of sql: String) throws -> [String] {
        try ready()
        let name = try serverName(sql, types: [])
        roundTrips += 1
        let result = pq.describePrepared(connection, name)
        defer { pq.clear(result) }
        try check(result, sql: sql)
        guard let result else { return [] }
        return columnNames(of: result)
    }

    /// `PQexec`, counted (`roundTrips`).
    private func exec(_ sql: String) -> OpaquePointer? {
        roundTrips += 1
        return pq.exec(connection, sql)
    }

    /// The names of a result's columns, as the server spelled them.
    func columnNames(of result: OpaquePointer) -> [String] {
        (0..<pq.nfields(result)).map { pq.fname(result, $0).map { String(cString: $0) } ?? "" }
    }

    /// One or more statements without parameters.
    public func execute(_ sql: String) throws {
        try ready()
        let result = exec(sql)
        defer { pq.clear(result) }
        try check(result, sql: sql)
        lastCommandChanges = changes(of: result)
        publishSearchPath(after: tag(of: result))
    }

    /// A command's tag (`SET`, `UPDATE 3`), empty for none.
    private func tag(of result: OpaquePointer?) -> String {
        guard let result, let status = pq.cmdStatus(result) else { return "" }
        return String(cString: status)
    }

    /// `interrupt`, for a signal's watcher thread to call.
    public var canceller: @Sendable () -> Void {
        let connection = WeakConnection(connection: self)
        return { connection.connection?.interrupt() }
    }

    /// Asks the server to cancel the running statement, which then fails with `.interrupted`.
    public func interrupt() {
        cancelLock.withLock {
            guard let cancel else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            cancelRequested = true
            _ = pq.cancel(cancel, &buffer, Int32(buffer.count))
        }
    }

    /// `BEGIN`: PostgreSQL takes its locks row by row, so both starts are the same.
    /// A reader's transaction is `REPEATABLE READ READ ONLY`: its statements see one snapshot,
    /// as a read transaction does on SQLite. A writer's is READ COMMITTED, the server's default.
    /// Sent with the transaction's first command (`ready`): a read that finds all it needs in
    /// the engine's caches costs no round trip to the server.
    public func begin(_ start: TransactionStart) throws {
        snapshotChangeMarker = nil
        try takeSharedSearchPath()
        pendingBegin = isReadOnly ? Self.readerBegin : "BEGIN"
    }

    /// Sets the search path another connection of the store published, outside any
    /// transaction (where no rollback undoes it); a round trip only when it changed.
    private func takeSharedSearchPath() throws {
        guard let (path, generation) = sharedSearchPath?.newer(than: searchPathTaken) else { return }
        try execute("SELECT pg_catalog.set_config('search_path', " + stringLiteral(path) + ", false)")
        searchPathTaken = generation
    }

    /// After a command whose tag is `tag`: a `SET` or `RESET` may have changed the search path,
    /// which the store's other connections then take (`SharedSearchPath`).
    private func publishSearchPath(after tag: String) {
        guard let sharedSearchPath, tag == "SET" || tag == "RESET" else { return }
        let result = exec("SELECT pg_catalog.current_setting('search_path')")
        defer { pq.clear(result) }
        guard let result, pq.resultStatus(result) == PGRES_TUPLES_OK, let path = pq.getvalue(result, 0, 0) else { return }
        searchPathTaken = sharedSearchPath.publish(String(cString: path))
    }
    public func commit() throws { try end("COMMIT") }
    public func rollback() throws { try end("ROLLBACK") }

    private static let readerBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// `COMMIT` or `ROLLBACK`, unless the transaction never reached the server. A reader's
    /// transaction wrote nothing, so its end cannot fail but with the connection, which the next
    /// command reports: it is deferred (`deferEnd`), then sent without waiting for the reply,
    /// with the `BEGIN` of the reader's next transaction (`beginNextRead`).
    private func end(_ sql: String) throws {
        snapshotChangeMarker = nil
        if pendingBegin != nil {
            pendingBegin = nil
            return
        }
        guard isReadOnly else {
            // What this transaction set is undone: the path shared is taken again.
            if sql == "ROLLBACK" { searchPathTaken = -1 }
            return try execute(sql)
        }
        makeReady()
        deferEnd(sql)
    }
    public func savepoint(_ name: String) throws { try execute("SAVEPOINT " + PostgresDialect().quoted(name)) }
    public func release(savepoint name: String) throws { try execute("RELEASE SAVEPOINT " + PostgresDialect().quoted(name)) }
    public func rollback(toSavepoint name: String) throws {
        try execute("ROLLBACK TO SAVEPOINT " + PostgresDialect().quoted(name))
    }

    public var isInTransaction: Bool {
        endLock.withLock {
            pendingBegin != nil
                || (deferredEnd == nil && !readBegunAhead && !endSentAlone && pq.transactionStatus(connection) != PQTRANS_IDLE)
        }
    }
    public var changes: Int { lastCommandChanges }
    /// PostgreSQL has no row id: a write that needs its new key returns it (`RETURNING`).
    public var lastInsertRowid: Int64 { 0 }

    // MARK: A reader's next transaction, begun ahead

    /// True when a reader's last transaction ended with its `COMMIT` (or `ROLLBACK`) and the
    /// next one's `BEGIN` sent in pipeline mode, their results not yet read. PostgreSQL takes a
    /// transaction's snapshot at its first statement, not at `BEGIN`, so the next read still sees
    /// everything committed before it starts, and meanwhile holds back no vacuum and no lock.
    /// The next read's first statement is sent behind them without waiting: a read costs one
    /// round trip, as the statement alone would.
    private var readBegunAhead = false

    /// Ends a reader's transaction with `end` and begins the next (`readBegunAhead`), in
    /// pipeline mode: sent at once with `flush` (a flush request: no `Sync`, which would end the
    /// pipeline), else with the next command. A failure to send leaves the session broken, which
    /// that command finds (`settleReadBegunAhead`).
    private func beginNextRead(after end: String, flush: Bool) {
        readBegunAhead = true
        guard pq.enterPipelineMode(connection) == 1,
              pq.sendQueryParams(connection, end, 0, nil, nil, nil, nil, 0) == 1,
              pq.sendQueryParams(connection, Self.readerBegin, 0, nil, nil, nil, nil, 0) == 1,
              flush else { return }
        _ = pq.sendFlushRequest(connection)
        _ = pq.flush(connection)
    }

    /// A reader's transaction end not yet sent (`COMMIT` or `ROLLBACK`). It goes with the next
    /// command, in the same message (`takeDeferredEnd`), or by itself `endDelay` after the read
    /// ended (`sendDeferredEnd`), whichever comes first: a burst of reads sends one message
    /// each, and no read holds its snapshot and locks for longer than that.
    private var deferredEnd: String?
    /// True while a timer is set to send the end deferred: one at a time, not one per read (the
    /// timer's thread has to be woken to set it).
    private var endTimerSet = false
    /// Guards `deferredEnd` and the session while the timer's thread sends it; every command
    /// takes it first (`takeDeferredEnd`).
    private let endLock = NSLock()
    private static let endDelay = DispatchTimeInterval.milliseconds(2)

    private func deferEnd(_ end: String) {
        let setTimer = endLock.withLock {
            deferredEnd = end
            defer { endTimerSet = true }
            return !endTimerSet
        }
        guard setTimer else { return }
        let target = WeakConnection(connection: self)
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.endDelay) { target.connection?.sendDeferredEnd() }
    }

    /// Sends the end deferred, if the next command has not taken it (a timer set earlier may
    /// send one deferred since: sooner than `endDelay`, never later).
    private func sendDeferredEnd() {
        endLock.withLock {
            endTimerSet = false
            guard let end = deferredEnd, !isClosed else { return }
            deferredEnd = nil
            sendEndAlone(end)
        }
    }

    /// True when a reader's end went by itself, with a `Sync` (`sendEndAlone`), its result not
    /// yet read: the session is in no transaction, the next command reads that result first.
    private var endSentAlone = false

    /// Sends a reader's transaction end by itself and a `Sync`, without waiting for the reply:
    /// the session is then idle, in no transaction, as `pg_stat_activity` shows it. (A `BEGIN`
    /// sent ahead with it, in a pipeline not yet synced, would keep the session "active" in a
    /// transaction until the next read.) The next read sends its `BEGIN` with its first
    /// statement (`send`), in one round trip still.
    private func sendEndAlone(_ end: String) {
        guard pq.enterPipelineMode(connection) == 1 else { return beginNextRead(after: end, flush: true) }
        _ = pq.sendQueryParams(connection, end, 0, nil, nil, nil, nil, 0)
        _ = pq.pipelineSync(connection)
        resultsPending = true
        syncPending = true
        endSentAlone = true
    }

    /// Queues the end deferred, if any, ahead of the command about to be sent.
    private func takeDeferredEnd() {
        endLock.withLock {
            guard let end = deferredEnd else { return }
            deferredEnd = nil
            beginNextRead(after: end, flush: false)
        }
    }

    /// Sends a read's first statement (`send`) behind the transaction begun ahead (or, with
    /// `begin`, behind its `BEGIN` sent now) and the snapshot's change marker, ends the pipeline,
    /// reads the results of the last transaction's end, the `BEGIN` and the marker, and waits for
    /// the statement's first result (kept in `arrived` for `next`). False, with nothing of the read run, when the session turns out
    /// dropped since (a restart, an administrator's terminate: the connection is made again) or
    /// the marker fails (`retryUsually`): the statement then goes the usual way.
    private func sendBehindReadBegunAhead(singleRow: Bool, begin: Bool = false, _ send: () -> Bool) throws -> Bool {
        if begin {
            // The last read's end, sent alone, is read first.
            makeReady()
            guard pq.enterPipelineMode(connection) == 1,
                  pq.sendQueryParams(connection, Self.readerBegin, 0, nil, nil, nil, nil, 0) == 1 else { return try retryUsually() }
        }
        // Not sent: the transaction begun ahead is settled the usual way (`ready`).
        guard !changeMarkerPrepared || pq.sendQueryPrepared(connection, Self.changeMarkerName, 0, nil, nil, nil, 0) == 1,
              send() else { return false }
        readBegunAhead = false
        resultsPending = true
        syncPending = true
        guard pq.pipelineSync(connection) == 1, takeResultsOfReadBegunAhead(withEnd: !begin),
              !singleRow || pq.setSingleRowMode(connection) == 1 else {
            return try retryUsually()
        }
        let first = pq.getResult(connection)
        if let first, pq.resultStatus(first) != PGRES_SINGLE_TUPLE && pq.resultStatus(first) != PGRES_TUPLES_OK {
            // A failure: the statement's own, or the session's end (known once all is read).
            discardRemaining()
            guard pq.status(connection) == CONNECTION_OK else {
                pq.clear(first)
                return try retryUsually()
            }
        }
        arrived = first
        pendingBegin = nil
        return true
    }

    /// The results of the last transaction's end (`withEnd`), the next one's `BEGIN` and its
    /// change marker (when prepared): true when all succeeded.
    private func takeResultsOfReadBegunAhead(withEnd: Bool) -> Bool {
        let commands = withEnd ? [PGRES_COMMAND_OK, PGRES_COMMAND_OK] : [PGRES_COMMAND_OK]
        for expected in commands + (changeMarkerPrepared ? [PGRES_TUPLES_OK] : []) {
            let result = pq.getResult(connection)
            let succeeded = result.map { pq.resultStatus($0) == expected } ?? false
            if succeeded, expected == PGRES_TUPLES_OK, let result, let marker = pq.getvalue(result, 0, 0) {
                snapshotChangeMarker = .text(String(cString: marker))
            }
            pq.clear(result)
            // Each command's results end with a null.
            let extra = pq.getResult(connection)
            pq.clear(extra)
            guard succeeded, extra == nil else { return false }
        }
        return true
    }

    /// Drops what the pipeline still holds and, when the server ended the session, connects again:
    /// false, for the statement to be sent the usual way. On a live session the change marker
    /// failed (its function refused to the role): it is asked no more, and the transaction it
    /// broke is rolled back.
    private func retryUsually() throws -> Bool {
        discardRemaining()
        guard pq.status(connection) == CONNECTION_OK else {
            try reconnect()
            return false
        }
        changeMarkerPrepared = false
        if pq.transactionStatus(connection) != PQTRANS_IDLE { pq.clear(exec("ROLLBACK")) }
        return false
    }

    /// Reads the results of the transaction begun ahead, if any, and ends the pipeline: true when
    /// the server is in that transaction.
    private func settleReadBegunAhead() -> Bool {
        guard readBegunAhead else { return false }
        readBegunAhead = false
        guard pq.pipelineSync(connection) == 1 else { return false }
        return drainPipeline() && pq.transactionStatus(connection) == PQTRANS_INTRANS
    }

    /// Reads and drops a pipeline's results up to its `Sync` and leaves pipeline mode: false when
    /// one of them failed.
    private func drainPipeline() -> Bool {
        syncPending = false
        var succeeded = true
        // Each command's results end with a null: a run of them longer than the pipeline's
        // commands means the Sync will not come (never here but on a broken connection).
        var nulls = 0
        while nulls < 8 {
            guard let result = pq.getResult(connection) else {
                if pq.status(connection) != CONNECTION_OK { succeeded = false; break }
                nulls += 1
                continue
            }
            nulls = 0
            let status = pq.resultStatus(result)
            pq.clear(result)
            if status == PGRES_PIPELINE_SYNC { break }
            if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_SINGLE_TUPLE { succeeded = false }
        }
        _ = pq.exitPipelineMode(connection)
        endSentAlone = false
        return succeeded
    }

    // MARK: COPY

    /// Starts `COPY … FROM STDIN`; the rows follow with `putCopyData`, then `endCopy`.
    func startCopy(_ sql: String) throws {
        try ready()
        let result = exec(sql)
        defer { pq.clear(result) }
        guard let result, pq.resultStatus(result) == PGRES_COPY_IN else {
            try check(result, sql: sql)
            throw PortalError(.database, "the server did not start the copy: \(sql)")
        }
    }

    /// Sends a chunk of COPY text.
    func putCopyData(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { pq.putCopyData(connection, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == 1 else { throw PortalError(.cannotOpen, "the copy was cut off: " + Self.text(pq.errorMessage(connection))) }
    }

    /// Ends the copy (failing it with `failure`, which makes the server discard it), and throws
    /// the server's error when the rows were refused.
    func endCopy(failure: String?) throws {
        _ = pq.putCopyEnd(connection, failure)
        var refusal: Error?
        while let result = pq.getResult(connection) {
            if failure == nil, refusal == nil {
                do { try check(result, sql: "COPY") } catch var error as PortalError {
                    error.row = copyLine(result)
                    refusal = error
                } catch { refusal = error }
            }
            pq.clear(result)
        }
        if let refusal { throw refusal }
    }

    /// The line of its input a failed COPY names in its context (`COPY t, line 2, column n: …`).
    private func copyLine(_ result: OpaquePointer) -> Int? {
        guard let context = pq.resultErrorField(result, Int32(UInt8(ascii: "W"))).map({ String(cString: $0) }),
              let range = context.range(of: #", line [0-9]+"#, options: .regularExpression) else { return nil }
        return Int(context[range].dropFirst(7))
    }

    // MARK: Results and errors

    /// The statement whose rows are arriving one by one, if any: the connection can run nothing
    /// else until they are all in, so anything else first has that statement take the rest.
    weak var streaming: PostgresStatement?
    /// True from sending a statement until its last result is in (also when the statement is gone).
    private var resultsPending = false
    /// True when the results pending end with a pipeline's `Sync` (`sendBehindReadBegunAhead`).
    private var syncPending = false
    /// The statement's first result, when it was read before it was asked for (by
    /// `sendBehindReadBegunAhead`, a failure already followed by the rest of its results).
    private var arrived: OpaquePointer?

    /// The `BEGIN` of a transaction begun but not yet sent.
    private var pendingBegin: String?

    /// Makes the connection ready for a command (`makeReady`), and sends the `BEGIN` of a
    /// transaction begun since the last one.
    private func ready() throws {
        cancelLock.withLock { cancelRequested = false }
        takeDeferredEnd()
        makeReady()
        let begunAhead = settleReadBegunAhead()
        guard let begin = pendingBegin else {
            // A command outside any transaction: not in the one begun ahead, where it would fix
            // the next read's snapshot.
            if begunAhead { try execute("COMMIT") }
            return
        }
        pendingBegin = nil
        if begunAhead { return }
        var result = exec(begin)
        if pq.status(connection) != CONNECTION_OK {
            // The session was dropped since the last transaction: nothing of this one has run
            // yet, so it starts on a new connection.
            pq.clear(result)
            try reconnect()
            result = exec(begin)
        }
        defer { pq.clear(result) }
        try check(result, sql: begin)
    }

    /// Lets the connection run another command: a statement still streaming rows takes the rest
    /// (keeping any failure for itself); the rows of one that is gone are dropped.
    func makeReady() {
        streaming?.takeRemainingRows()
        discardRemaining()
    }

    /// Drops whatever results of the statement sent are still to come.
    func discardRemaining() {
        pq.clear(arrived)
        arrived = nil
        if syncPending {
            _ = drainPipeline()
        } else if resultsPending {
            while let rest = pq.getResult(connection) { pq.clear(rest) }
        }
        resultsPending = false
        streaming = nil
    }

    /// Sends `sql` with text parameters (blobs in binary), its rows to arrive one at a time
    /// (libpq's single-row mode: memory for one row, whatever the result's size), or all at once
    /// when they are few (`isBounded`).
    func send(_ sql: String, _ values: [Value], for statement: PostgresStatement) throws {
        let types = parameterTypes(sql, values)
        let singleRow = !Self.isBounded(sql, values)
        cancelLock.withLock { cancelRequested = false }
        takeDeferredEnd()
        try withParameters(values) { parameters, lengths, formats in
            func sendPrepared(_ name: String) -> Bool {
                roundTrips += 1
                return pq.sendQueryPrepared(connection, name, Int32(values.count), parameters, lengths, formats, 0) == 1
            }
            if readBegunAhead, pendingBegin != nil, let name = prepared[Self.preparedKey(sql, types)],
               try sendBehindReadBegunAhead(singleRow: singleRow, { sendPrepared(name) }) {
                return
            }
            // A read after the last one's end went alone (`sendEndAlone`): its BEGIN goes with it.
            if isReadOnly, !readBegunAhead, pendingBegin != nil, let name = prepared[Self.preparedKey(sql, types)],
               try sendBehindReadBegunAhead(singleRow: singleRow, begin: true, { sendPrepared(name) }) {
                return
            }
            // Ready first: a transaction's BEGIN may find the session dropped and connect again,
            // which forgets what was prepared.
            try ready()
            let name = try serverName(sql, types: types)
            guard sendPrepared(name) else {
                throw PortalError(.cannotOpen, "cannot send to PostgreSQL: " + Self.text(pq.errorMessage(connection)))
            }
            resultsPending = true
            guard !singleRow || pq.setSingleRowMode(connection) == 1 else {
                discardRemaining()
                throw PortalError(.database, "PostgreSQL would not send the rows one at a time: \(sql)")
            }
        }
        streaming = statement
    }

    /// True when a run of `sql` with `values` returns at most 1,000 rows: its last words are
    /// `LIMIT n` (as the engine's pages end) or `LIMIT $k` bound to n, with n no more. Such a
    /// result comes in one piece: in single-row mode libpq makes a result per row, column
    /// descriptions copied into each, which costs a page of the browser more than the server's
    /// work for it.
    static func isBounded(_ sql: String, _ values: [Value]) -> Bool {
        let digits = sql.utf8.reversed().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
        guard (1...4).contains(digits), let number = Int(sql.suffix(digits)) else { return false }
        let words = sql.dropLast(digits)
        if words.hasSuffix(" LIMIT ") { return number <= 1000 }
        guard words.hasSuffix(" LIMIT $"), number == values.count, case .integer(let limit)? = values.last else { return false }
        return limit <= 1000
    }

    /// Calls `body` with `values` as libpq's parameters: text (blobs in binary), lengths, formats.
    private func withParameters(_ values: [Value], _ body: (UnsafePointer<UnsafePointer<CChar>?>?, [Int32], [Int32]) throws -> Void) throws {
        var pointers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for pointer in pointers { free(pointer) } }
        for value in values {
            switch value {
            case .null:
                pointers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .blob(let bytes):
                let pointer = malloc(max(bytes.count, 1))?.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { raw in
                    if let pointer, let base = raw.baseAddress { memcpy(pointer, base, bytes.count) }
                }
                pointers.append(pointer)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            default:
                let text = Self.parameterText(value)
                // A C string ends at NUL, and PostgreSQL's text cannot hold one.
                guard !text.utf8.contains(0) else {
                    throw PortalError(.conversion, "PostgreSQL text cannot hold a NUL character (in \(text.debugDescription))")
                }
                pointers.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            }
        }
        try pointers.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { try body($0.baseAddress, lengths, formats) }
        }
    }

    /// The columns of the last statement's result that ended without a row (`next`): a
    /// query's, or none for a command. A statement learns its columns from its first result
    /// (`PostgresStatement.columnNames`).
    private(set) var lastResultColumns: [String] = []

    /// What arrives next for the statement sent.
    enum Arrival {
        /// Rows, for the caller to clear: a result of one row (single-row mode), or of them all
        /// (a bounded result, `isBounded`).
        case rows(OpaquePointer)
        /// The end: no more rows, or the outcome of a command; the connection is ready again.
        case end
    }

    /// The next arrival of the statement sent. A failure is thrown once every result of the
    /// statement is in (the connection is then ready again).
    func next(sql: String) throws -> Arrival {
        let waiting = arrived
        arrived = nil
        guard let result = waiting ?? pq.getResult(connection) else {
            discardRemaining()
            return .end
        }
        let status = pq.resultStatus(result)
        if status == PGRES_SINGLE_TUPLE { return .rows(result) }
        if status == PGRES_TUPLES_OK && pq.ntuples(result) > 0 {
            // Every row in one result; the null that ends it comes next.
            lastCommandChanges = changes(of: result)
            return .rows(result)
        }
        defer { pq.clear(result) }
        var failure: Error?
        do { try check(result, sql: sql) } catch { failure = error }
        lastResultColumns = status == PGRES_TUPLES_OK ? columnNames(of: result) : []
        lastCommandChanges = changes(of: result)
        let tag = status == PGRES_COMMAND_OK ? tag(of: result) : ""
        discardRemaining()
        if let failure { throw failure }
        publishSearchPath(after: tag)
        return .end
    }

    /// A parameter's text: what PostgreSQL parses for the type it infers at that place.
    private static func parameterText(_ value: Value) -> String {
        switch value {
        case .integer(let n): return String(n)
        case .real(let r): return realText(r)
        case .decimal(let d): return d.text
        case .text(let s): return s
        case .null, .blob: return ""
        }
    }

    /// A double as PostgreSQL reads it back exactly (`NaN` and `Infinity` by name).
    static func realText(_ r: Double) -> String {
        r.isFinite ? "\(r)" : (r.isNaN ? "NaN" : (r > 0 ? "Infinity" : "-Infinity"))
    }

    private func changes(of result: OpaquePointer?) -> Int {
        guard let result, let tuples = pq.cmdTuples(result) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    /// Throws the server's error, classified by its SQLSTATE code (never by its text).
    private func check(_ result: OpaquePointer?, sql: String) throws {
        let status = result.map(pq.resultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_SINGLE_TUPLE
                && status != PGRES_EMPTY_QUERY else { return }
        func field(_ code: Character) -> String? {
            result.flatMap { pq.resultErrorField($0, Int32(code.asciiValue ?? 0)) }.map { String(cString: $0) }
        }
        // The server's message without its severity (`ERROR:  `), its detail and hint apart;
        // libpq's own failures (a lost connection) have only the whole text.
        let message = field("M") ?? result.map { Self.text(pq.resultErrorMessage($0)) } ?? Self.text(pq.errorMessage(connection))
        let state = field("C") ?? ""
        let cancelled = state == SQLState.queryCanceled && cancelLock.withLock { cancelRequested }
        // libpq's own failure (no SQLSTATE) on a connection that is gone is a lost server, as
        // the server's own word that it ends the session is (`57P01` and its kin).
        let lost = state.isEmpty && pq.status(connection) != CONNECTION_OK
        // A statement timeout is the server's cancel, not the user's interrupt.
        let kind = lost ? .cannotOpen : state == SQLState.queryCanceled && !cancelled ? .database : Self.kind(ofSQLState: state)
        var error = PortalError(kind, message.isEmpty ? "PostgreSQL failed: \(sql)" : message)
        if !state.isEmpty { error.sqlState = state }
        error.detail = field("D")
        error.hint = field("H")
        error.sql = sql
        Self.name(&error, table: field("t"), column: field("c"), constraint: field("n"))
        throw error
    }

    /// A violated constraint in the words SQLite's errors use (`NOT NULL constraint failed:
    /// Track.Name`, `UNIQUE constraint failed: name_key`), from the SQLSTATE and the fields the
    /// server names the table, the column and the constraint in.
    static func name(_ error: inout PortalError, table: String?, column: String?, constraint: String?) {
        error.entity = table ?? error.entity
        if let column {
            error.attribute = column
            error.attributes = [column]
        }
        guard let kind = error.constraint else { return }
        let qualifiedColumn = column.map { (table.map { $0 + "." } ?? "") + $0 }
        guard let subject = kind == .notNull ? qualifiedColumn ?? constraint : constraint ?? qualifiedColumn else { return }
        error.message = "\(kind.rawValue) constraint failed: \(subject)"
    }

    /// PostgreSQL's error codes, by the classes and names of its manual (Appendix A).
    static func kind(ofSQLState state: String) -> PortalError.Kind {
        switch state {
        case SQLState.notNullViolation: return .constraint(.notNull)
        case SQLState.uniqueViolation: return .constraint(.unique)
        case SQLState.foreignKeyViolation: return .constraint(.foreignKey)
        case SQLState.checkViolation: return .constraint(.check)
        case SQLState.queryCanceled: return .interrupted
        case SQLState.readOnlySQLTransaction: return .readOnly
        case SQLState.diskFull: return .diskFull
        case SQLState.undefinedTable: return .unknownEntity
        case SQLState.undefinedColumn: return .unknownAttribute
        case SQLState.serializationFailure, SQLState.deadlockDetected, SQLState.lockNotAvailable: return .busy
        // The server ends the session: an administrator's command, a crash, a shutdown.
        case SQLState.adminShutdown, SQLState.crashShutdown, SQLState.cannotConnectNow: return .cannotOpen
        default: return state.hasPrefix(SQLState.connectionExceptionClass) ? .cannotOpen : .database
        }
    }

    /// A message of libpq's, its tab-indented continuation lines joined to the first (a
    /// terminal shows a tab in an error as `\t`).
    static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        var text = String(cString: pointer).replacingOccurrences(of: "\n\t", with: " ")
        while text.last == "\n" { text.removeLast() }
        return text
    }
}

/// A connection, for the timer that sends its deferred end from another thread (under its
/// `endLock`) and for a signal's watcher thread (`canceller`); weak, so that neither keeps a
/// connection open.
private struct WeakConnection: @unchecked Sendable {
    weak var connection: PostgresConnection?
}
