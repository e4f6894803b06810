import Foundation
import PortalEngine
@testable import PortalTUI

/// An in-memory data source for model tests, with real keyset semantics (rows are located by
/// comparing (sort value, id), never by position) and a tiny filter language:
/// `Column == literal` and `Column CONTAINS "text"`; anything else is an error at its position.
final class MemoryDataSource: BrowserDataSource, @unchecked Sendable {
    private let lock = NSLock()
    private var tables: [(entity: BrowserEntity, rows: [BrowserRow])]
    private var token: UInt64 = 0
    private var nextID: Int64 = 1000
    /// Counts beyond this many rows report `.atLeast` when given a budget.
    var budgetLimit = Int.max
    var failWrites: String?
    private(set) var pageRequests: [PageRequest] = []

    init(_ tables: [(BrowserEntity, [BrowserRow])]) {
        self.tables = tables.map { (entity: $0.0, rows: $0.1) }
    }

    func entities() throws -> [BrowserEntity] { locked { tables.map(\.entity) } }

    func changeToken() -> UInt64 { locked { token } }
    func cancel() {}

    func validate(entity: String, filter: String) -> BrowserError? {
        guard let t = locked({ tables.first { $0.entity.name == entity } }) else {
            return BrowserError("no entity")
        }
        do {
            _ = try matcher(filter, t.entity)
            return nil
        } catch let error as BrowserError {
            return error
        } catch {
            return BrowserError("\(error)")
        }
    }

    func page(_ request: PageRequest) throws -> [BrowserRow] {
        try locked {
            pageRequests.append(request)
            let t = try table(request.entity)
            let ordered = try sorted(t, request)
            let key = sortKey(t.entity, request.sort)
            func position(_ row: BrowserRow) -> Int {
                ordered.firstIndex { compare(key($0), key(row), request.sort) >= 0 } ?? ordered.count
            }
            switch request.anchor {
            case .first: return Array(ordered.prefix(request.limit))
            case .last: return Array(ordered.suffix(request.limit))
            case .atOrAfter(let row): return Array(ordered[position(row)...].prefix(request.limit))
            case .after(let row):
                let start = ordered.firstIndex { compare(key($0), key(row), request.sort) > 0 } ?? ordered.count
                return Array(ordered[start...].prefix(request.limit))
            case .before(let row): return Array(ordered[..<position(row)].suffix(request.limit))
            }
        }
    }

    func count(entity: String, filter: String, budget: Duration?) throws -> RowCount {
        try locked {
            let t = try table(entity)
            let match = try matcher(filter, t.entity)
            let n = t.rows.filter(match).count
            if budget != nil, n > budgetLimit { return .atLeast(budgetLimit) }
            return .exact(n)
        }
    }

    func create(entity: String, values: [(String, Value)]) throws -> BrowserRow {
        try write(entity) { t in
            var row = BrowserRow(id: [], values: t.entity.columns.map { _ in Value.null })
            for (name, value) in values {
                if let i = t.entity.columns.firstIndex(where: { $0.name == name }) { row.values[i] = value }
            }
            row.id = t.entity.idColumns.map { name in
                t.entity.columns.firstIndex { $0.name == name }.map { row.values[$0] } ?? .null
            }
            if row.id.allSatisfy(\.isNull), let keyIndex = t.entity.columns.firstIndex(where: \.isKey) {
                nextID += 1
                row.values[keyIndex] = .integer(nextID)
                row.id = [.integer(nextID)]
            }
            if t.rows.contains(where: { $0.id == row.id }) { throw BrowserError("UNIQUE constraint failed") }
            t.rows.append(row)
            return row
        }
    }

    func update(entity: String, id: [Value], column: String, value: Value) throws -> BrowserRow {
        try write(entity) { t in
            guard let r = t.rows.firstIndex(where: { $0.id == id }),
                  let c = t.entity.columns.firstIndex(where: { $0.name == column }) else { throw BrowserError("no such row") }
            t.rows[r].values[c] = value
            if t.entity.columns[c].isKey { t.rows[r].id = [value] }
            return t.rows[r]
        }
    }

    func delete(entity: String, id: [Value]) throws {
        try write(entity) { t in
            guard let r = t.rows.firstIndex(where: { $0.id == id }) else { throw BrowserError("no such row") }
            t.rows.remove(at: r)
        }
    }

    /// Keeps nothing of what it deletes: the values shown are inserted again.
    func restore(entity: String, id: [Value], values: [(String, Value)]) throws -> BrowserRow {
        try create(entity: entity, values: values)
    }

    func rows(of entity: String) -> [BrowserRow] { locked { tables.first { $0.entity.name == entity }?.rows ?? [] } }

    // MARK: - Helpers (call with the lock held)

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func write<T>(_ entity: String, _ body: (inout (entity: BrowserEntity, rows: [BrowserRow])) throws -> T) throws -> T {
        try locked {
            if let failWrites { throw BrowserError(failWrites) }
            guard let i = tables.firstIndex(where: { $0.entity.name == entity }) else { throw BrowserError("no entity") }
            var t = tables[i]
            let result = try body(&t)
            tables[i] = t
            token += 1
            return result
        }
    }

    private func table(_ name: String) throws -> (entity: BrowserEntity, rows: [BrowserRow]) {
        guard let t = tables.first(where: { $0.entity.name == name }) else { throw BrowserError("no entity \(name)") }
        return t
    }

    private func sortKey(_ entity: BrowserEntity, _ sort: BrowserSort?) -> (BrowserRow) -> [Value] {
        let index = sort.flatMap { s in entity.columns.firstIndex { $0.name == s.column } }
        return { row in (index.map { [row.values[$0]] } ?? []) + row.id }
    }

    private func sorted(_ t: (entity: BrowserEntity, rows: [BrowserRow]), _ request: PageRequest) throws -> [BrowserRow] {
        let match = try matcher(request.filter, t.entity)
        let key = sortKey(t.entity, request.sort)
        return t.rows.filter(match).sorted { compare(key($0), key($1), request.sort) < 0 }
    }

    /// Compares keys: the sort value in the sort's direction, then the id ascending.
    private func compare(_ a: [Value], _ b: [Value], _ sort: BrowserSort?) -> Int {
        for i in a.indices {
            var c = Self.compare(a[i], b[i])
            if i == 0, sort != nil, sort?.direction == .descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }

    /// SQLite's order: NULL, numbers, text, blobs.
    static func compare(_ a: Value, _ b: Value) -> Int {
        func rank(_ v: Value) -> Int {
            switch v {
            case .null: return 0
            case .integer, .real, .decimal: return 1
            case .text: return 2
            case .blob: return 3
            }
        }
        func number(_ v: Value) -> Double {
            switch v {
            case .integer(let i): return Double(i)
            case .real(let d): return d
            case .decimal(let d): return d.double
            default: return 0
            }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a, b) {
        case (.text(let x), .text(let y)): return x == y ? 0 : (Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : 1)
        case (.blob(let x), .blob(let y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        case (.null, .null): return 0
        default:
            let (x, y) = (number(a), number(b))
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    private func matcher(_ filter: String, _ entity: BrowserEntity) throws -> (BrowserRow) -> Bool {
        let text = filter.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return { _ in true } }
        let parts = text.split(separator: " ", maxSplits: 2).map(String.init)
        guard let name = parts.first else { return { _ in true } }
        guard let column = entity.columns.firstIndex(where: { $0.name == name }) else {
            throw BrowserError("unknown attribute '\(name)' on \(entity.name)", range: 0..<name.count)
        }
        guard parts.count == 3, parts[1] == "==" || parts[1] == "CONTAINS" else {
            let start = name.count + 1
            throw BrowserError("expected == or CONTAINS", range: start..<max(start + 1, text.count))
        }
        let literal = parts[2]
        let value: Value
        if literal.hasPrefix("\""), literal.hasSuffix("\""), literal.count >= 2 {
            value = .text(String(literal.dropFirst().dropLast()))
        } else if let i = Int64(literal) {
            value = .integer(i)
        } else if literal == "nil" {
            value = .null
        } else {
            let start = text.count - literal.count
            throw BrowserError("expected a literal", range: start..<text.count)
        }
        if parts[1] == "==" { return { $0.values[column] == value } }
        guard case .text(let needle) = value else { throw BrowserError("CONTAINS needs text") }
        return { row in
            if case .text(let s) = row.values[column] { return s.contains(needle) }
            return false
        }
    }
}
