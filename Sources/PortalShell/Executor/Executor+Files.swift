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

    /// Streams the query's rows to `path`, or to the session's output for `-`.
    func export(_ query: Query, path: String, format: DataFormat?) throws {
        let (compiled, entity) = try compile(query, limitOne: false)
        var fileOptions = options
        fileOptions.format = OutputFormat(rawValue: try dataFormat(format, path: path).rawValue) ?? .csv
        fileOptions.header = true
        // tsv has no quotes: NULL is written `\N` so that it differs from empty text on import.
        fileOptions.nullText = fileOptions.format == .tsv ? DelimitedReader.tsvNull : nil
        fileOptions.typedFields = true
        if path == "-" {
            let rows = try exportRows(compiled, entity, options: fileOptions, to: output)
            return report("exported \(rows) \(entity.name) to standard output")
        }
        try requireDatabase().refuseOwnFile(path, "export to")
        let file = try ExportFile(path)
        let stream = OutputStream(fileDescriptor: file.descriptor, ownsDescriptor: true)
        let rows: Int
        do {
            rows = try exportRows(compiled, entity, options: fileOptions, to: stream)
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
    private func exportRows(_ compiled: CompiledQuery, _ entity: EntityDescription, options: OutputOptions,
                            to stream: OutputStream) throws -> Int {
        let renderer = makeRenderer(options, stream: stream)
        let delimited = renderer as? DelimitedRenderer
        var rows = 0
        try requireDatabase().query(compiled.sql, compiled.bindings, columns: { names in
            // A column that is an attribute keeping any type (declared BLOB, or without a type).
            delimited?.untypedColumns = names.map { entity.attribute(named: $0).map { ColumnAffinity(declaredType: $0.declaredType) == .blob } ?? false }
            renderer.begin(columns: names)
        }, row: {
            rows += 1
            renderer.row($0)
        })
        renderer.end()
        if let delimited, delimited.tab { reportTSVLosses(delimited) }
        return rows
    }

    /// What tsv could not carry: blobs, and numbers in columns that keep any type.
    private func reportTSVLosses(_ renderer: DelimitedRenderer) {
        let blobs = renderer.blobsAsText
        if blobs > 0 {
            report("warning: tsv has no blobs: \(blobs) \(blobs == 1 ? "blob was" : "blobs were") written as base64 text, "
                + "which import reads back as text (csv, json and ndjson keep blobs)")
        }
        let numbers = renderer.numbersAsText
        if numbers > 0 {
            report("warning: tsv has no types: \(numbers) \(numbers == 1 ? "number" : "numbers") in columns without a type "
                + "(or declared BLOB) will be read back as text (csv, json and ndjson keep them)")
        }
    }
}
