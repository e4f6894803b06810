import PortalPredicate

extension PredicateCompiler {
    /// Compiles `text`, one expression of the predicate language (`Milliseconds + 1000`,
    /// `uppercase(Name)`, `"caf\u00e9"`), to the SQL of a value to store in `attribute` of `entity`:
    /// the same strings, functions, operators and type rules as in a predicate. With `alias` the
    /// expression may use the row's attributes and to-one key paths (an UPDATE's SET, the row
    /// being `alias`); without, it may not (an INSERT's VALUES). A date (`now()`, `CAST(…, "NSDate")`)
    /// is stored as Unix seconds in an INTEGER or REAL column, else as ISO-8601 text. Throws a
    /// `PortalPredicateError` with the position of the culprit in `text` when it is known.
    public static func compileValue(_ text: String, for attribute: AttributeDescription,
                                    variables: [String: Argument] = [:], entity: EntityDescription,
                                    schema: Schema, alias: String?,
                                    dialect: any SQLDialect) throws -> SQLFragment {
        let expression = try ExpressionTree.parse(text)
        if alias == nil, let name = firstName(in: expression) {
            throw PortalPredicateError(.invalidOperation, "a value here cannot refer to an attribute (quote text: \"\(name)\")",
                                 range: TokenLocator.range(of: name, in: text))
        }
        let compiler = SQLCompiler(schema: schema, variables: variables, rootAlias: alias ?? "", dialect: dialect)
        do {
            let operand = try compiler.operand(expression, in: Scope(entity: entity, alias: alias ?? ""))
            return try storedValue(operand, for: attribute, dialect: dialect)
        } catch var error as PortalPredicateError where error.range == nil {
            error.range = compiler.failingToken.flatMap { TokenLocator.range(of: $0, in: text) }
            throw error
        }
    }

    private static func storedValue(_ operand: Operand, for attribute: AttributeDescription,
                                    dialect: any SQLDialect) throws -> SQLFragment {
        if attribute.storage == .secondsSinceReferenceDate { return try secondsSinceReferenceDate(operand, for: attribute) }
        // An archived value is shown decoded and kept as the app's bytes: only bytes or nil go in.
        if attribute.storage == .archivedValue {
            guard case .scalar(let sql, let info) = operand, let literal = info.literal, literal.isNull || { if case .blob = literal { true } else { false } }() else {
                throw PortalPredicateError(.invalidOperation, "\(attribute.name) holds archived values, shown decoded: write one as "
                                     + "the bytes the app archived (a blob), or nil")
            }
            return sql
        }
        // UUID text for a column that keeps UUIDs as 16-byte blobs (Core Data's): the blob.
        if attribute.storage == .uuidBlob, case .scalar(_, let info) = operand, case .text(let text)? = info.literal {
            guard let bytes = StorageConvention.uuidBytes(text) else {
                throw PortalPredicateError(.invalidOperation, "\(attribute.name) holds UUIDs: '\(text)' is not a UUID")
            }
            return .bound(.blob(bytes))
        }
        switch operand {
        case .scalar(let sql, _):
            return sql
        case .date(let seconds):
            // A column whose type says how it holds dates (a server's timestamptz) takes it so.
            if let typed = dialect.date(seconds, comparedWithColumnOf: attribute.declaredType) { return typed }
            switch ColumnAffinity(declaredType: attribute.declaredType) {
            case .integer, .real:
                let whole = seconds == seconds.rounded() && abs(seconds) < 9e15
                return .bound(whole ? .integer(Int64(seconds)) : .real(seconds))
            case .text, .blob, .numeric: return .bound(Dates.isoText(seconds))
            }
        case .list, .toMany:
            throw PortalPredicateError(.invalidOperation, "\(attribute.name) needs one value, not \(operand.kindDescription)")
        }
    }

    /// A date for a column of Core Data's convention: a date (`now()`, `CAST(…, "NSDate")`) or
    /// date text becomes seconds since 2001; a number is taken as already in that form.
    private static func secondsSinceReferenceDate(_ operand: Operand, for attribute: AttributeDescription) throws -> SQLFragment {
        var seconds: Double
        switch operand {
        case .date(let value): seconds = value
        case .scalar(_, let info) where info.literal?.isNull == true: return .bound(.null)
        case .scalar(let sql, let info):
            guard case .text(let text)? = info.literal else { return sql }
            guard let parsed = DateSemantics.parse(text) else {
                throw PortalPredicateError(.invalidOperation, "\(attribute.name) holds dates: '\(text)' is not a date (write yyyy-MM-dd HH:mm:ss)")
            }
            seconds = parsed
        case .list, .toMany:
            throw PortalPredicateError(.invalidOperation, "\(attribute.name) needs one value, not \(operand.kindDescription)")
        }
        seconds -= DateSemantics.referenceDateOffset
        return .bound(seconds == seconds.rounded() && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .real(seconds))
    }

    /// The first attribute name (or SELF) an expression refers to, outside SUBQUERY variables.
    private static func firstName(in expression: ExpressionTree) -> String? {
        switch expression {
        case .key(let name): return name
        case .self: return "SELF"
        case .literal, .variable: return nil
        case .member(let base, _), .subscript(let base, _), .cast(let base, _), .negate(let base): return firstName(in: base)
        case .subquery(let collection, _, _): return firstName(in: collection)
        case .aggregate(let elements), .function(_, let elements): return elements.lazy.compactMap(firstName).first
        case .arithmetic(let left, _, let right): return firstName(in: left) ?? firstName(in: right)
        }
    }
}
