/// A Swift value type stored as one row of an entity: its stored properties are the attributes.
///
///     struct User: PortalEntity {
///         static let entityName = "User"; static let idAttribute = "id"
///         var id: Int64; var name: String; var age: Int?
///     }
public protocol PortalEntity: Codable, Sendable {
    /// The table (or view) the entity is stored in.
    static var entityName: String { get }
    /// The attribute that identifies one entity (its primary key), used by `update` and `upsert`.
    static var idAttribute: String { get }
    /// Every attribute of the id, in key order: the parts of a composite primary key, or
    /// `["rowid"]` for a table without one (with a `rowid: Int64?` property, nil for a new row).
    static var idAttributes: [String] { get }
    /// The name in the schema of each property a Foundation `#Predicate` or `SortDescriptor`
    /// may name whose own name is not its attribute's or relationship's (see `FoundationPredicates`).
    static var predicateKeys: [PartialKeyPath<Self>: String] { get }
}

extension PortalEntity {
    /// By default the id attribute is named `id`.
    public static var idAttribute: String { "id" }
    /// By default the id is `idAttribute` alone.
    public static var idAttributes: [String] { [idAttribute] }
}
