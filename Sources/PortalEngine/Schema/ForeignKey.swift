/// One foreign key constraint as PRAGMA foreign_key_list reports it, columns in order — or
/// one the user declares for tables that have none (the shell's `relate`).
public struct ForeignKey: Sendable, Hashable {
    /// The referencing entity.
    public var from: String
    /// The referenced entity.
    public var to: String
    /// The referencing columns, in key order.
    public var fromColumns: [String]
    /// Empty in the PRAGMA when the constraint names no columns: the parent's primary key.
    public var toColumns: [String]

    /// A key from `from`'s `fromColumns` to `to`'s `toColumns` (empty: its primary key).
    public init(from: String, to: String, fromColumns: [String], toColumns: [String]) {
        self.from = from
        self.to = to
        self.fromColumns = fromColumns
        self.toColumns = toColumns
    }
}

extension Schema {
    /// The schema with relationships for `keys` too, named by the same rules as declared
    /// foreign keys' (a name already taken gets `Ref`, an inverse `_by<Column>`).
    public func addingRelationships(_ keys: [ForeignKey]) -> Schema {
        keys.isEmpty ? self : Schema(entities: RelationshipNaming.attach(keys, to: entities))
    }
}
