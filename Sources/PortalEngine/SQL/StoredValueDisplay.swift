import PortalPredicate

// How values kept by a storage convention read when shown: a Core Data date (seconds since
// 2001) as a UTC date, a UUID blob as UUID text. Comparisons do not go through here: the compiler
// converts the other side instead (ExpressionCompiler), so indexes keep working.

extension EntityDescription {
    /// Every attribute, as `attributeColumns` gives them, with dates and UUIDs kept by a storage
    /// convention shown as text (`2025-08-01 11:41:41.589`, `B6DB996D-8A0A-4983-AFBD-D206B7D38A23`).
    /// Values that do not have the convention's shape (text in a date column) are shown as they are.
    public func displayColumns(alias: String) -> [SQLFragment] {
        attributes.map { attribute in
            let source = PortalEngine.column(alias, attribute.column)
            let shown: String
            switch attribute.storage {
            case .natural:
                return SQLFragment(attribute.column == attribute.name ? source : source + " AS " + quoted(attribute.name))
            case .secondsSinceReferenceDate:
                shown = "CASE WHEN typeof(\(source)) IN ('integer', 'real') THEN strftime('%Y-%m-%d %H:%M:%f', "
                    + "\(source) + \(Self.referenceDateOffset), 'unixepoch') ELSE \(source) END"
            case .uuidBlob:
                let hex = "hex(\(source))"
                let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(\(hex), \($0.0), \($0.1))" }
                shown = "CASE WHEN typeof(\(source)) = 'blob' AND length(\(source)) = 16 THEN "
                    + parts.joined(separator: " || '-' || ") + " ELSE \(source) END"
            }
            return SQLFragment(shown + " AS " + quoted(attribute.name))
        }
    }

    /// Seconds from 1970-01-01 to 2001-01-01 UTC (Core Data's reference date).
    static let referenceDateOffset = Int(DateSemantics.referenceDateOffset)
}
