import PortalPredicate

/// A compiled expression: what one side of a comparison turned into.
enum Operand {
    /// A single SQL value.
    case scalar(SQLFragment, ScalarInfo)
    /// `{a, b}` or a `$variable` holding a list: for IN and BETWEEN.
    case list([Operand])
    /// A date from `CAST(…, "NSDate")` or `now()`, in Unix seconds. How it is bound depends on
    /// what it is compared with (docs/predicates.md, the date rule).
    case date(Double)
    /// A to-many relationship named as a value, without an aggregate: only valid for error text.
    case toMany(RelationshipDescription)
}

/// What is known about a scalar: used for index-friendly forms and for type errors.
struct ScalarInfo {
    /// The attribute the value comes from, when it is one.
    var attribute: AttributeDescription?
    /// True when the SQL is a plain `alias."column"` of the current row (an index can serve it).
    var isPlainColumn = false
    /// The literal, when the SQL is just `?` bound to it.
    var literal: Value?
    /// The to-one relationship whose foreign key this is, when a relationship was named.
    var relationship: RelationshipDescription?
    /// An entity's id (SELF, a to-one relationship, an element): compared without the column's
    /// affinity, as the evaluator compares ids.
    var isIdentity = false
    /// For an attribute reached through to-one relationships: the joins, and the attribute as a
    /// plain column of the last joined row (for the semi-join form of comparisons).
    var path: [JoinStep] = []
    var local: String?
    /// The text-valued function that computed it (`lowercase`, `uppercase`), for type errors.
    var textFunction: String?
    /// For a value inside a JSON document: where, to be compiled again as compared with a
    /// literal (a number with a number, a text with a text: `SQLDialect.jsonValue`).
    var json: JSONKeyPath?

    static let computed = ScalarInfo()

    var affinity: ColumnAffinity? { attribute.map { ColumnAffinity(declaredType: $0.declaredType) } }
}

/// A key path into the JSON document of an attribute (`doc.a.b`).
struct JSONKeyPath {
    /// The row that holds the document.
    var scope: Scope
    var attribute: AttributeDescription
    /// The keys after the attribute's name.
    var keys: [String]
}

extension Operand {
    static func literal(_ value: Value) -> Operand {
        .scalar(.bound(value), ScalarInfo(literal: value))
    }

    /// A description for error messages.
    var kindDescription: String {
        switch self {
        case .scalar(_, let info):
            if let relationship = info.relationship { return "the to-one relationship '\(relationship.name)'" }
            return "a value"
        case .list: return "a list"
        case .date: return "a date"
        case .toMany(let relationship): return "the to-many relationship '\(relationship.name)'"
        }
    }
}
