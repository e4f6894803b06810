import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

extension Executor {
    /// The data format named by `as`, else by the file's extension, else (no extension, or
    /// `-`) csv. An extension that names no format is an error: `g.xlsx` must not get csv.
    func dataFormat(_ format: DataFormat?, path: String) throws -> DataFormat {
        if let format { return format }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .csv }
        let ext = name[name.index(after: dot)...].lowercased()
        if ext == "jsonl" { return .ndjson }
        if let format = DataFormat(rawValue: ext) { return format }
        let formats = DataFormat.allCases.map { "'as \($0.rawValue)'" }.joined(separator: ", ")
        throw ShellError("'\(path)': the extension '.\(ext)' names no data format; add one of \(formats)")
    }

    func importData(_ name: Located<String>, path: String, format: DataFormat?) throws {
        let entity = try writableEntity(name)
        guard let text = readFileBytes(path) else { throw ShellError("cannot read '\(path)': \(String(cString: strerror(errno)))") }
        let format = try dataFormat(format, path: path)
        var records: [ImportRecord] = []
        do {
            switch format {
            case .csv, .tsv:
                let (header, rows, headerLine) = try DelimitedReader.records(text, tab: format == .tsv)
                records = rows.map { row in
                    ImportRecord(line: row.line, fields: Array(zip(header, row.values)), namesLine: headerLine)
                }
            case .json, .ndjson:
                records = try JSONReader.records(text, lines: format == .ndjson)
            }
        } catch {
            throw ShellError("\(path), \(format == .json ? "line" : "line") \(error.line): \(error.message); nothing was imported")
        }
        let progress = isatty(2) == 1
        let imported = try performWrite(entity, []) { (context: WriteContext) throws -> Int in
            var n = 0
            for record in records {
                var columns: [String] = []
                for field in record.fields {
                    guard let attribute = entity.attribute(named: field.name) else {
                        let suggestion = closestName(to: field.name, among: entity.attributes.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                        throw ShellError("\(path), line \(record.namesLine): unknown attribute '\(field.name)' on \(entity.name)\(suggestion); nothing was imported")
                    }
                    columns.append(attribute.name)
                }
                do {
                    // The engine's insert reuses its statement while the columns stay the same.
                    try context.insert(entity.name, columns: columns, values: record.fields.map { field in
                        entity.attribute(named: field.name).map { Self.importValue(field.value, for: $0) } ?? field.value
                    })
                } catch let error as PortalError where error.kind != .interrupted {
                    throw ShellError("\(path), line \(record.line): \(entity.name): \(error.description); nothing was imported")
                }
                n += 1
                if progress && n % 50_000 == 0 {
                    errors.write("\rimporting… \(n) of \(records.count)")
                    errors.flush()
                }
            }
            if progress && n >= 50_000 { errors.write("\r") }
            return n
        }
        report("imported \(imported) \(entity.name)")
    }

    /// What an imported value becomes in `attribute`: base64 text in a column declared BLOB is
    /// the bytes it encodes (every export writes blobs as base64); anything else is kept as is.
    static func importValue(_ value: Value, for attribute: AttributeDescription) -> Value {
        guard case .text(let text) = value, attribute.declaredType.uppercased().contains("BLOB"),
              let bytes = Base64.decode(text) else { return value }
        return .blob(bytes)
    }

    /// Streams the query's rows to `path`, or to the session's output for `-`.
    func export(_ query: Query, path: String, format: DataFormat?) throws {
        let (compiled, entity) = try compile(query, limitOne: false)
        var fileOptions = options
        fileOptions.format = OutputFormat(rawValue: try dataFormat(format, path: path).rawValue) ?? .csv
        fileOptions.header = true
        // tsv has no quotes: NULL is written `\N` so that it differs from empty text on import.
        fileOptions.nullText = fileOptions.format == .tsv ? DelimitedReader.tsvNull : nil
        if path == "-" {
            let rows = try exportRows(compiled, options: fileOptions, to: output)
            return report("exported \(rows) \(entity.name) to standard output")
        }
        try requireDatabase().refuseOwnFile(path, "export to")
        let file = try ExportFile(path)
        let stream = OutputStream(fileDescriptor: file.descriptor, ownsDescriptor: true)
        let rows: Int
        do {
            rows = try exportRows(compiled, options: fileOptions, to: stream)
        } catch {
            _ = stream.close()
            file.discard()
            throw error
        }
        if stream.flush() { file.synchronize() }
        if let code = stream.close() {
            file.discard()
            throw ShellError("writing '\(path)' failed: \(String(cString: strerror(code)))\(file.isReplacing ? "; the file was left as it was" : "")")
        }
        try file.commit()
        report("exported \(rows) \(entity.name) to \(path)")
    }

    /// Renders the query's rows to `stream`; returns how many.
    private func exportRows(_ compiled: CompiledQuery, options: OutputOptions, to stream: OutputStream) throws -> Int {
        let renderer = makeRenderer(options, stream: stream)
        var rows = 0
        try requireDatabase().query(compiled.sql, compiled.bindings, columns: { renderer.begin(columns: $0) }, row: {
            rows += 1
            renderer.row($0)
        })
        renderer.end()
        return rows
    }
}
