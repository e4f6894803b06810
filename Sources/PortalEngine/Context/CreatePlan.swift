import PortalPredicate

// `create` returns the row as stored. SQLite's INSERT … RETURNING gives it, but costs several
// times the insert itself (the returned rows go through a table of their own). On an ordinary
// SQLite table the stored row is known without it whenever every value is one the column's
// affinity keeps or converts exactly, every column left out holds NULL or the new rowid, and
// nothing but the insert decides the row (no generated columns, no defaults among the columns
// left out). Anything else takes the insert with RETURNING.

/// What `create` knows of a table to tell the stored row from the values given (a class: a
/// loop of creates reads and updates it in place).
final class CreatePlan {
    /// The entity the plan is for, as the caller named it.
    let entity: String
    /// `Store.rawWrites` when the plan was made: raw SQL since may have changed the table.
    let rawWrites: Int
    /// The table's columns in declaration order, as INSERT … RETURNING * names them.
    let columns: ColumnNames
    /// Each column's affinity.
    let affinities: [ColumnAffinity]
    /// Each column's NOT NULL.
    let notNull: [Bool]
    /// Each column's value when the insert leaves it out: NULL, or nil when a default decides it.
    let omitted: [Value?]
    /// The INTEGER PRIMARY KEY, which is the rowid.
    let rowidAlias: Int?
    /// The columns of the last insert, in table order, the positions they are at, and whether
    /// the columns it left out are all known (kept from one row to the next: a loop of creates
    /// gives the same names, and the insert finds its statement by comparing this same array).
    @exclusivity(unchecked) var lastGiven: UInt64 = 0
    @exclusivity(unchecked) var lastColumns: [String] = []
    @exclusivity(unchecked) var lastPositions: [Int] = []
    /// The positions of the columns the last insert left out.
    @exclusivity(unchecked) var lastOmitted: [Int] = []
    @exclusivity(unchecked) var lastOmittedKnown = false

    /// The plan of `entity`, nil where `create` needs RETURNING for every row: a virtual table,
    /// generated columns, more than 64 columns (the columns given are a bit set), an
    /// `INTEGER PRIMARY KEY DESC` (which SQLite does not make the rowid).
    init?(_ entity: String, _ described: EntityDescription, rawWrites: Int) {
        let attributes = described.attributes
        guard described.kind == .table, !described.isVirtual, attributes.count <= 64,
              !attributes.contains(where: \.isGenerated), described.discriminator == nil else { return nil }
        let keys = attributes.indices.filter { attributes[$0].primaryKeyPosition != nil }
        var alias: Int?
        if described.hasRowid, keys.count == 1, let key = keys.first, attributes[key].declaredType.uppercased() == "INTEGER" {
            let create = described.definitions.first { $0.type == .table }?.sql.uppercased() ?? ""
            guard !create.filter({ !$0.isWhitespace }).contains("PRIMARYKEYDESC") else { return nil }
            alias = key
        }
        self.entity = entity
        self.rawWrites = rawWrites
        columns = ColumnNames(attributes.map(\.column))
        affinities = attributes.map { ColumnAffinity(declaredType: $0.declaredType) }
        notNull = attributes.map { !$0.isNullable }
        omitted = attributes.map { $0.defaultValue == nil ? .null : nil }
        names = attributes.map(\.column)
        slots = Self.slots(for: attributes.map(\.column))
        smallSlots = Array(repeating: (0, 0, -1), count: slots.count)
        rowidAlias = alias
    }

    /// The position of the column named exactly `name`, by the names' hash table: Swift's
    /// seeded hashing, or comparing names that differ, costs more than the insert's own work
    /// on the column.
    func position(of name: String) -> Int? {
        let mask = slots.count - 1
        var slot = Self.hash(name) & mask
        while case let position = slots[slot], position >= 0 {
            if names[position] == name { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The columns' names, in table order.
    private let names: [String]

    /// The position of the column named exactly `name`, found first by the name's own two words
    /// when it is a small string. A Swift string of up to 15 UTF-8 bytes (most column names)
    /// holds them in those words, with nothing stored elsewhere, so two small strings with the
    /// same words are the same name: one multiply and a comparison of two words find it, where
    /// reading its bytes through `String` costs several times the insert's own work on the
    /// column. Other names, and the first sight of each small one, go by `position(of:)`.
    @inline(__always)
    func column(named name: String) -> Int? {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        let (low, high) = unsafeBitCast(name, to: (UInt64, UInt64).self)
        // The top byte of the second word: bit 61 says the string is small.
        if high & (1 << 61) != 0 {
            let mask = smallSlots.count - 1
            var slot = Int(truncatingIfNeeded: ((low ^ high &* 31) &* 0x9e37_79b9_7f4a_7c15) >> 40) & mask
            while case let known = smallSlots[slot], known.position >= 0 {
                if known.low == low && known.high == high { return known.position }
                slot = (slot + 1) & mask
            }
            guard let position = position(of: name) else { return nil }
            // At most one entry per column (equal names are equal words), and never a full table.
            if smallCount < names.count {
                smallSlots[slot] = (low, high, position)
                smallCount += 1
            }
            return position
        }
        #endif
        return position(of: name)
    }

    /// `column(named:)`'s table: a small name's two words and its position (-1: empty slot),
    /// twice as many slots as columns, filled as names are first seen.
    @exclusivity(unchecked) private var smallSlots: [(low: UInt64, high: UInt64, position: Int)]
    @exclusivity(unchecked) private var smallCount = 0

    /// The last row's values, kept for the next row to fill (a row is copied into the `Row`
    /// returned, so one array serves a whole loop of creates).
    @exclusivity(unchecked) private var scratch: [Value] = []

    /// An array of one value per column, to fill with a row: the last row's values, each of
    /// which the next row overwrites (the columns given, then `lastOmitted`), so they are not
    /// cleared here (destroying ten values per row cost more than the insert's work on them).
    func takeRow() -> [Value] {
        var row: [Value] = []
        swap(&row, &scratch)
        guard row.count == names.count else { return [Value](repeating: .null, count: names.count) }
        return row
    }

    /// Gives the array back once the row is made.
    func giveBack(_ row: inout [Value]) { swap(&row, &scratch) }

    /// The columns' positions by `hash` of their names, open addressing (-1: empty slot).
    private let slots: [Int]

    /// FNV-1a of the name's UTF-8, read in place (a short name from the stack); a Swift
    /// hash of it is seeded and costs several times more.
    private static func hash(_ name: String) -> Int {
        func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(truncatingIfNeeded: hash ^ (hash >> 29))
        }
        if let hash = name.utf8.withContiguousStorageIfAvailable(fnv) { return hash }
        return ContiguousArray(name.utf8).withUnsafeBufferPointer(fnv)
    }

    private static func slots(for names: [String]) -> [Int] {
        var count = 4
        while count < names.count * 2 { count *= 2 }
        var slots = [Int](repeating: -1, count: count)
        for (position, name) in names.enumerated() {
            var slot = hash(name) & (count - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (count - 1) }
            slots[slot] = position
        }
        return slots
    }

    /// Notes the columns given (a bit per position), in table order.
    func give(_ given: UInt64) {
        guard given != lastGiven || lastColumns.isEmpty else { return }
        lastGiven = given
        lastPositions = columns.names.indices.filter { given & (1 << UInt64($0)) != 0 }
        lastColumns = lastPositions.map { columns.names[$0] }
        lastOmitted = columns.names.indices.filter { given & (1 << UInt64($0)) == 0 }
        lastOmittedKnown = omitted.indices.allSatisfy { i in given & (1 << UInt64(i)) != 0 || omitted[i] != nil || i == rowidAlias }
    }

    /// What storing `value` in the column at `position` does to it.
    enum Change { case none, converts, unknown }

    @inline(__always)
    func change(_ value: Value, at position: Int) -> Change {
        // The common case first: an integer in a column that keeps integers.
        if case .integer = value, position != rowidAlias {
            switch affinities[position] {
            case .integer, .numeric, .blob: return .none
            case .real, .text: return .converts
            }
        }
        switch stored(value, at: position) {
        case nil: return .unknown
        case value?: return position == rowidAlias ? .converts : .none
        default: return .converts
        }
    }

    /// `value` as the column at `position` stores it, nil when that is not known for certain
    /// (text a number column may convert, a real an integer column may, NaN, NULL in a NOT
    /// NULL column, which ON CONFLICT REPLACE may fill with a default). The rowid is filled in
    /// after the insert.
    func stored(_ value: Value, at position: Int) -> Value? {
        if position == rowidAlias {
            switch value {
            case .null, .integer: return .null
            default: return nil
            }
        }
        switch (value, affinities[position]) {
        case (.null, _): return notNull[position] ? nil : value
        case (.blob, _): return value
        case (.integer(let n), .real): return .real(Double(n))
        case (.integer(let n), .text): return .text(String(n))
        case (.integer, _): return value
        case (.real(let x), .real), (.real(let x), .blob): return x.isNaN ? nil : value
        case (.text, .text), (.text, .blob): return value
        case (.real, _), (.text, _), (.decimal, _): return nil
        }
    }
}

extension WriteContext {
    /// Inserts `values` into a plain SQLite table and returns the row as stored, known without
    /// RETURNING; nil, having written nothing, where that row is not known for certain (the
    /// caller then inserts with RETURNING).
    func createKnownRow(_ entity: String, _ values: [String: Value]) throws -> Row? {
        let rawWrites = store.rawWrites.load(ordering: .relaxed)
        let plan: CreatePlan
        if let known = createPlan, known.entity == entity, known.rawWrites == rawWrites {
            plan = known
        } else {
            if let refused = createRefused, refused.entity == entity, refused.rawWrites == rawWrites { return nil }
            guard !store.writePolicy.keepsBookkeeping, connection is any LocalDatabaseConnection,
                  let made = CreatePlan(entity, try self.entity(named: entity), rawWrites: rawWrites) else {
                createRefused = (entity, rawWrites)
                return nil
            }
            createPlan = made
            plan = made
        }
        // The row in table order: the values given, then (after the insert) their stored forms.
        var row = plan.takeRow()
        var given: UInt64 = 0
        for (name, value) in values {
            // A name in another case, or no column's, takes the general path (and its errors).
            guard let i = plan.column(named: name) else { return nil }
            given |= 1 << UInt64(i)
            row[i] = value
        }
        plan.give(given)
        guard plan.lastOmittedKnown else { return nil }
        // The row array holds the last row's values where this one gives none.
        for i in plan.lastOmitted { row[i] = .null }
        var converts = false
        for i in plan.lastPositions {
            switch plan.change(row[i], at: i) {
            case .unknown: return nil
            case .converts: converts = true
            case .none: break
            }
        }
        // Every column given: the row is the values to bind, in order.
        let bound = plan.lastPositions.count == row.count ? row : plan.lastPositions.map { row[$0] }
        try insert(entity, columns: plan.lastColumns, values: bound)
        _ = try insertedRows(entity)
        if converts {
            for i in plan.lastPositions { row[i] = plan.stored(row[i], at: i) ?? row[i] }
        }
        if let alias = plan.rowidAlias { row[alias] = .integer(connection.lastInsertRowid) }
        let made = Row(columns: plan.columns, values: row)
        plan.giveBack(&row)
        return made
    }
}
