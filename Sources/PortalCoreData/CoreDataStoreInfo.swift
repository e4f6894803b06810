import Foundation
import PortalEngine

/// What a Core Data store says about itself: its entity numbers (`Z_PRIMARYKEY`) and, when it
/// keeps one, its model (`Z_MODELCACHE`). Read only; nothing here writes.
public struct CoreDataStoreInfo: Sendable, Hashable {
    /// One row of `Z_PRIMARYKEY`.
    public struct EntityNumber: Sendable, Hashable {
        /// `Z_ENT`: the number rows of the entity carry.
        public var number: Int
        /// `Z_NAME`: the entity's name.
        public var name: String
        /// `Z_SUPER`: the parent entity's number, 0 for a root.
        public var parent: Int
        /// `Z_MAX`: the highest primary key given out in the root's table.
        public var max: Int64
    }

    /// Every row of `Z_PRIMARYKEY`, by `Z_ENT`.
    public var entityNumbers: [EntityNumber]
    /// The model of `Z_MODELCACHE`, nil when the store keeps none or it was not read.
    public var cachedModel: CoreDataModel?

    /// True when the database has the tables only Core Data makes (`Z_PRIMARYKEY`, `Z_METADATA`).
    public static func isCoreDataStore(_ connection: any DatabaseConnection) throws -> Bool {
        try tablesPresent(["Z_PRIMARYKEY", "Z_METADATA"], connection) == 2
    }

    /// True when the database `context` reads has the tables only Core Data makes, asked in
    /// that read (a caller that reads anyway, such as an open that touches the file, needs no
    /// connection of its own for it).
    public static func isCoreDataStore(_ context: ReadContext) throws -> Bool {
        guard context.connection is any LocalDatabaseConnection else { return false }   // a server
        return try isCoreDataStore(context.connection)
    }

    /// Reads `Z_PRIMARYKEY` and, when `readingModelCache`, the model cache of the store on
    /// `connection`. A caller with a model of its own does not read the cache: a damaged cache
    /// must not stop a store opened by the app's model.
    public init(_ connection: any DatabaseConnection, readingModelCache: Bool = true) throws {
        guard try Self.tablesPresent(["Z_PRIMARYKEY"], connection) == 1 else {
            throw PortalError(.coreDataModel, "not a Core Data store: there is no Z_PRIMARYKEY table")
        }
        entityNumbers = []
        for row in try connection.prepare("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").rows() {
                guard case .integer(let number) = row.value(at: 0), case .text(let name) = row.value(at: 1) else {
                    throw PortalError(.coreDataModel, "Z_PRIMARYKEY has a row without a number or a name")
                }
                let parent = if case .integer(let p) = row.value(at: 2) { Int(p) } else { 0 }
                let max = if case .integer(let m) = row.value(at: 3) { m } else { Int64(0) }
                entityNumbers.append(EntityNumber(number: Int(number), name: name, parent: parent, max: max))
        }
        cachedModel = try readingModelCache && Self.tablesPresent(["Z_MODELCACHE"], connection) == 1
            ? Self.cachedModel(connection) : nil
    }

    /// The model `Z_MODELCACHE` holds: raw DEFLATE around a keyed archive. A cache that cannot
    /// be read says that the app's model file can stand in for it.
    private static func cachedModel(_ connection: any DatabaseConnection) throws -> CoreDataModel? {
        guard let value = try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else { return nil }
        do {
            guard case .blob(let compressed) = value, !compressed.isEmpty else {
                throw PortalError(.coreDataModel, "Z_MODELCACHE.Z_CONTENT holds no compressed model")
            }
            let archive = try Inflate.raw(compressed)
            return try ModelArchiveReader.model(archive: Data(archive), source: "Z_MODELCACHE")
        } catch var error as PortalError where error.kind == .coreDataModel {
            error.message += "; --model PATH opens the store by the app's model file instead"
            throw error
        }
    }

    /// How many of `names` are tables of the database: asked of SQLite, as every open asks it
    /// (a set of every table's name cost each start a run-time conformance lookup).
    private static func tablesPresent(_ names: [String], _ connection: any DatabaseConnection) throws -> Int64 {
        // Appended in a loop: `joined(separator:)` is generic, and its first call looks a
        // conformance up at run time.
        var list = ""
        for name in names { list += (list.isEmpty ? "'" : ", '") + name + "'" }
        let count = try connection.scalar("SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name IN (\(list))")
        if case .integer(let n) = count { return n }
        return 0
    }

    /// The number (`Z_ENT`) of the entity called `name`.
    public func number(of name: String) -> Int? { entityNumbers.first { $0.name == name }?.number }
}
