import PortalEngine
import PortalTUI

/// One cell of the schema report: typed, so that json gets booleans, numbers and arrays and
/// the text formats get words.
enum SchemaCell {
    case text(String)
    case integer(Int)
    case flag(Bool)
    case list([String])
    case none

    /// The cell as a value for the row renderers: `yes`/`no`, lists joined with `, `; none is
    /// empty text where people read it (not `NULL`), NULL in csv and tsv.
    func value(none: Value) -> Value {
        switch self {
        case .text(let text): return .text(text)
        case .integer(let n): return .integer(Int64(n))
        case .flag(let on): return .text(on ? "yes" : "no")
        case .list(let items): return .text(items.joined(separator: ", "))
        case .none: return none
        }
    }

    func writeJSON(to stream: OutputStream) {
        switch self {
        case .text(let text): JSONText.writeString(text, to: stream)
        case .integer(let n): stream.write(String(n))
        case .flag(let on): stream.write(on ? "true" : "false")
        case .list(let items):
            stream.write("[" + items.map(JSONText.string).joined(separator: ",") + "]")
        case .none: stream.write("null")
        }
    }
}

/// One part of an entity's description: its attributes, relationships, indexes, checks or
/// triggers. `columns` are the keys of the data formats; the first one is shown under `title`
/// (`attribute`, `index`, …) in the formats meant for reading.
struct SchemaSection {
    var name: String
    var title: String
    var columns: [String]
    var rows: [[SchemaCell]]
}

/// What `schema` says about one entity, in every output format: the formats meant for reading
/// get a headline and a table per section; json an object per entity, ndjson one per line; csv
/// and tsv one table whose `section` column says which part a row describes.
struct SchemaReport {
    var entity: EntityDescription
    /// Which sections the report has.
    var view = View.schema

    enum View {
        /// `schema`: attributes, relationships, indexes, checks, triggers.
        case schema
        /// `describe`: as psql's `\d` shows a table: columns, indexes, constraints, the
        /// entities that refer to it, triggers.
        case description
    }

    var sections: [SchemaSection] {
        switch view {
        case .schema: schemaSections
        case .description: descriptionSections
        }
    }

    private var descriptionSections: [SchemaSection] {
        let foreignKeys = entity.relationships.filter { $0.kind == .toOne && $0.joinTable == nil }.map { r in
            [SchemaCell.text("foreign key"), .text("FOREIGN KEY (\(r.sourceColumns.joined(separator: ", "))) REFERENCES "
                                                + "\(r.destination) (\(r.destinationColumns.joined(separator: ", ")))")]
        }
        let primaryKey = entity.primaryKey.isEmpty ? []
            : [[SchemaCell.text("primary key"), .text("PRIMARY KEY (\(entity.primaryKey.joined(separator: ", ")))")]]
        return [
            SchemaSection(name: "columns", title: "column", columns: ["name", "type", "nullable", "default"],
                          rows: entity.attributes.map { a in
                              [.text(a.name), .text(a.declaredType), .flag(a.isNullable), a.defaultValue.map(SchemaCell.text) ?? .none]
                          }),
            SchemaSection(name: "indexes", title: "index", columns: ["name", "columns", "unique"],
                          rows: entity.indexes.map { [.text($0.name), .list($0.columns), .flag($0.isUnique)] }),
            SchemaSection(name: "constraints", title: "constraint", columns: ["constraint", "definition"],
                          rows: primaryKey + foreignKeys + entity.checks.map { [.text("check"), .text($0)] }),
            SchemaSection(name: "referencedBy", title: "referenced by", columns: ["from", "via"],
                          rows: entity.relationships.filter { $0.kind == .toMany }.map { r in [.text(r.destination), .list(via(r))] }),
            SchemaSection(name: "triggers", title: "trigger", columns: ["name", "sql"],
                          rows: entity.triggers.map { [.text($0.name), .text($0.sql)] }),
        ]
    }

    private var schemaSections: [SchemaSection] {
        [
            SchemaSection(name: "attributes", title: "attribute",
                          columns: ["name"] + (isMapped ? ["column"] : []) + ["type", "nullable", "default", "id", "generated"],
                          rows: entity.attributes.map { a in
                              [.text(a.name)] + (isMapped ? [.text(a.column)] : [])
                                  + [.text(a.declaredType), .flag(a.isNullable),
                                     a.defaultValue.map(SchemaCell.text) ?? .none,
                                     a.primaryKeyPosition.map(SchemaCell.integer) ?? .none,
                                     a.generated.map { .text($0.rawValue) } ?? .none]
                          }),
            SchemaSection(name: "relationships", title: "relationship", columns: ["name", "kind", "destination", "via"],
                          rows: entity.relationships.map { r in
                              [.text(r.name), .text(r.kind.rawValue), .text(r.destination), .list(via(r))]
                          }),
            SchemaSection(name: "indexes", title: "index", columns: ["name", "columns", "unique"],
                          rows: entity.indexes.map { [.text($0.name), .list($0.columns), .flag($0.isUnique)] }),
            SchemaSection(name: "checks", title: "check", columns: ["constraint"],
                          rows: entity.checks.map { [.text($0)] }),
            SchemaSection(name: "triggers", title: "trigger", columns: ["name", "sql"],
                          rows: entity.triggers.map { [.text($0.name), .text($0.sql)] }),
        ]
    }

    /// `Name (table, without rowid)`; for an entity a catalog maps, where its rows are:
    /// `ICNote (table ZICCLOUDSYNCINGOBJECT where Z_ENT IN (11))`.
    var headline: String {
        guard isMapped else { return "\(entity.name) (\(entity.kindLabel)\(withoutRowid ? ", without rowid" : ""))" }
        let rows = entity.discriminator.map { " where " + $0.description } ?? ""
        return "\(entity.name) (\(entity.kind.rawValue) \(entity.table)\(rows))"
    }

    /// True when the entity's names are not its table's and columns' (a Core Data model's).
    var isMapped: Bool { !entity.isStoredByName }

    /// The columns that keep a relationship: the key column of a to-one, the destination's
    /// column of a to-many, the join table's columns of a many-to-many.
    func via(_ r: RelationshipDescription) -> [String] {
        if let join = r.joinTable { return (join.sourceColumns + join.destinationColumns).map { "\(join.table).\($0)" } }
        return r.kind == .toOne ? r.sourceColumns : r.destinationColumns.map { "\(r.destination).\($0)" }
    }

    /// False on a database without row ids (PostgreSQL), where no table is "without rowid".
    var hasRowids = true

    var withoutRowid: Bool { hasRowids && entity.kind == .table && !entity.hasRowid }

    /// The entity's CREATE statement, nil for one SQLite made itself.
    var createStatement: String? { entity.definitions.first { $0.name == entity.table }?.sql }

    /// The fields of the entity itself, before its sections (json keys, csv `entity` rows).
    var entityFields: [(String, SchemaCell)] {
        [("kind", .text(entity.kindLabel)), ("withoutRowid", hasRowids ? .flag(withoutRowid) : .none),
         ("sql", createStatement.map(SchemaCell.text) ?? .none)]
    }

    /// `{"entity": …, "kind": …, "withoutRowid": …, "sql": …, "attributes": [{…}], …}`.
    func writeJSON(to stream: OutputStream) {
        stream.write("{\"entity\":")
        JSONText.writeString(entity.name, to: stream)
        for (key, cell) in entityFields {
            stream.write("," + JSONText.string(key) + ":")
            cell.writeJSON(to: stream)
        }
        for section in sections {
            stream.write("," + JSONText.string(section.name) + ":[")
            for (i, row) in section.rows.enumerated() {
                stream.write(i == 0 ? "{" : ",{")
                for (k, cell) in row.enumerated() {
                    stream.write((k == 0 ? "" : ",") + JSONText.string(section.columns[k]) + ":")
                    cell.writeJSON(to: stream)
                }
                stream.write("}")
            }
            stream.write("]")
        }
        stream.write("}")
    }

    /// The columns of the one csv/tsv table: `entity`, `section`, then every key of the entity
    /// fields and the sections, each once.
    static func delimitedColumns(_ view: View) -> [String] {
        var columns = ["entity", "section", "name"]
        let keys = SchemaReport(entity: EntityDescription(name: "", kind: .table, attributes: [], primaryKey: [],
                                                          hasRowid: true, relationships: [], indexes: []), view: view)
        for key in keys.entityFields.map(\.0) + keys.sections.flatMap(\.columns) where !columns.contains(key) {
            columns.append(key)
        }
        return columns
    }

    /// This entity's rows of the one csv/tsv table.
    func delimitedRows(columns: [String]) -> [[Value]] {
        func row(_ section: String, _ fields: [(String, SchemaCell)]) -> [Value] {
            columns.map { column in
                switch column {
                case "entity": return .text(entity.name)
                case "section": return .text(section)
                default: return fields.first { $0.0 == column }?.1.value(none: .null) ?? .null
                }
            }
        }
        var rows = [row("entity", [("name", .text(entity.name))] + entityFields)]
        for section in sections {
            rows += section.rows.map { cells in row(section.name, Array(zip(section.columns, cells))) }
        }
        return rows
    }
}

extension Executor {
    /// `schema [E] [sql]`: the description of one entity or every one, or their CREATE statements.
    func schema(_ name: Located<String>?, sql: Bool) throws {
        let entities = try name.map { [try entity($0)] } ?? requireDatabase().schema.entities
        if sql { return schemaSQL(entities) }
        let hasRowids = try requireDatabase().store.dialect.rowidColumn != nil
        let reports = entities.map { entity in
            var report = SchemaReport(entity: entity)
            report.hasRowids = hasRowids
            return report
        }
        try schema(reports, single: name != nil)
    }

    /// The reports in the output format: json an array of them (one object alone when
    /// `single`), ndjson one per line, csv and tsv one table, the others a headline and tables.
    func schema(_ reports: [SchemaReport], single: Bool) throws {
        switch options.format {
        case .json:
            if !single { output.write("[") }
            for (i, report) in reports.enumerated() {
                if !single { output.write(i == 0 ? "\n" : ",\n") }
                report.writeJSON(to: output)
            }
            output.write(!single ? (reports.isEmpty ? "]\n" : "\n]\n") : "\n")
        case .ndjson:
            for report in reports {
                report.writeJSON(to: output)
                output.write(10)
            }
        case .csv, .tsv:
            let columns = SchemaReport.delimitedColumns(reports.first?.view ?? .schema)
            let renderer = makeRenderer(options, stream: output)
            renderer.begin(columns: columns)
            for report in reports {
                report.delimitedRows(columns: columns).forEach(renderer.row)
            }
            renderer.end()
        case .table, .line, .markdown:
            for (i, report) in reports.enumerated() {
                if i > 0 { output.write(10) }
                describe(report)
            }
        }
    }

    /// The headline and a table per non-empty section (the first, attributes or columns, always).
    private func describe(_ report: SchemaReport) {
        output.write((options.format == .markdown ? "### " : "") + displayed(report.headline) + "\n")
        let first = report.sections.first?.name
        for section in report.sections where section.name == first || !section.rows.isEmpty {
            if section.name != first || options.format == .markdown { output.write(10) }
            let renderer = makeRenderer(options, stream: output)
            renderer.begin(columns: [section.title] + section.columns.dropFirst())
            for row in section.rows { renderer.row(row.map { $0.value(none: .text("")) }) }
            renderer.end()
        }
    }

    /// The CREATE statements, with real newlines: as SQL text, each ending with `;`, in the
    /// formats meant for reading; as rows (entity, type, name, sql) in the data formats.
    private func schemaSQL(_ entities: [EntityDescription]) {
        switch options.format {
        case .table, .line, .markdown:
            for (i, entity) in entities.enumerated() {
                if i > 0 { output.write(10) }
                for definition in entity.definitions {
                    output.write(displayedSQL(definition.sql) + ";\n")
                }
            }
        case .csv, .tsv, .json, .ndjson:
            let renderer = makeRenderer(options, stream: output)
            renderer.begin(columns: ["entity", "type", "name", "sql"])
            for entity in entities {
                for d in entity.definitions {
                    renderer.row([.text(entity.name), .text(d.type.rawValue), .text(d.name), .text(d.sql)])
                }
            }
            renderer.end()
        }
    }

    /// SQL shown on a terminal: line breaks and tabs kept, every other control character escaped.
    private func displayedSQL(_ sql: String) -> String {
        sql.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.split(separator: "\t", omittingEmptySubsequences: false).map { displayed(String($0)) }
                .joined(separator: "\t") }
            .joined(separator: "\n")
    }
}
