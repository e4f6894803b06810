import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

extension Executor {
    /// Imports a csv, tsv, json or ndjson file into `name`, streamed a record at a time (memory
    /// stays flat whatever the file's size), in one write: all or nothing.
    func importData(_ name: Located<String>, path: String, format: DataFormat?) throws {
        let entity = try writableEntity(name)
        let format = try dataFormat(format, path: path)
        let progress = ImportProgress(errors, enabled: isatty(2) == 1)
        // The rule for empty csv and tsv fields depends on the whole file: a record late in it may
        // show that the file tells NULL from empty text, and the import then starts again (see
        // DelimitedReader). A pipe or a device cannot be read twice: it is read whole into memory first.
        let twice = format == .csv || format == .tsv
        let bytes: [UInt8]? = twice && !ImportInput.isRegularFile(path) ? try wholeImport(path) : nil
        func open() throws -> ImportInput {
            if let bytes { return ImportInput(bytes: bytes, chunkSize: ImportInput.chunkSize) }
            return try openImport(path)
        }
        var marked = false
        while true {
            do {
                let imported = try performWrite(entity, []) { (context: WriteContext) throws -> Int in
                    let input = try open()
                    defer { progress.finish() }
                    do {
                        switch format {
                        case .csv, .tsv:
                            var reader = DelimitedReader(input, tab: format == .tsv, marked: marked)
                            return try importDelimited(&reader, into: entity, context, progress: progress, input: input)
                        case .json, .ndjson:
                            var reader = JSONReader(input, lines: format == .ndjson)
                            return try importJSON(&reader, into: entity, context, progress: progress, input: input)
                        }
                    } catch var error as ShellError {
                        // An error at a line of the file (the readers', a name, an insert) says
                        // which file here, once for all of them.
                        guard let line = error.line else { throw error }
                        error.message = "\(path), line \(line): \(error.message); nothing was imported"
                        throw error
                    }
                }
                report("imported \(imported) \(entity.name)")
                return
            } catch is DelimitedReader.Remark where !marked {
                // The write was rolled back: nothing of the first reading is kept.
                marked = true
            }
        }
    }

    private func wholeImport(_ path: String) throws -> [UInt8] {
        guard let bytes = readFileBytes(path) else { throw ShellError("cannot read '\(path)': \(String(cString: strerror(errno)))") }
        return bytes
    }

    private func openImport(_ path: String) throws -> ImportInput {
        guard let input = ImportInput(path: path) else { throw ShellError("cannot read '\(path)': \(String(cString: strerror(errno)))") }
        return input
    }

    /// csv and tsv: the header names the columns once; every record has a value for each.
    private func importDelimited(_ reader: inout DelimitedReader, into entity: EntityDescription, _ context: WriteContext,
                                 progress: ImportProgress, input: ImportInput) throws -> Int {
        let (names, headerLine) = try reader.header()
        let attributes = try importAttributes(names, of: entity, line: headerLine)
        reader.textColumns = attributes.map { ColumnAffinity(declaredType: $0.declaredType) == .text }
        let columns = attributes.map(\.name)
        let numeric = numericColumns(attributes)
        reader.numericColumns = numeric
        // The record's work captures the entity's name alone (a copy of its description per record cost more).
        let name = entity.name
        var count = 0
        while try reader.next({ fields, line in
            try Self.checkFields(fields, numeric: numeric, columns: columns, line: line)
            do {
                // The engine's insert reuses its statement while the columns stay the same.
                try context.insert(name, columns: columns, fields: fields)
            } catch let error as PortalError where error.kind != .interrupted {
                throw Self.insertError(error, into: name, line: line)
            }
        }) != nil {
            count += 1
            progress.update(count, input)
        }
        return count
    }

    /// json and ndjson: each object names its columns (looked up again only when they change).
    private func importJSON(_ reader: inout JSONReader, into entity: EntityDescription, _ context: WriteContext,
                            progress: ImportProgress, input: ImportInput) throws -> Int {
        var keys: [String] = []
        var columns: [String] = []
        var numeric: [Bool] = []
        var count = 0
        while let record = try reader.next() {
            if record.fields.count != keys.count || !zip(record.fields, keys).allSatisfy({ $0.name == $1 }) {
                keys = record.fields.map(\.name)
                let attributes = try importAttributes(keys, of: entity, line: record.line)
                columns = attributes.map(\.name)
                numeric = numericColumns(attributes)
            }
            let values = record.fields.map(\.value)
            try Self.checkValues(values, numeric: numeric, columns: columns, line: record.line)
            try insert(values, columns: columns, into: entity, context, line: record.line)
            count += 1
            progress.update(count, input)
        }
        return count
    }

    /// The attributes a header's or an object's names name, each once: a second column for the
    /// same attribute (`id,name,name`, or `Name` and `name`) would leave one of the two values
    /// unsaid, so it is an error at `line`.
    private func importAttributes(_ names: [String], of entity: EntityDescription, line: Int) throws -> [AttributeDescription] {
        let attributes = try names.map { try importAttribute($0, of: entity, line: line) }
        var seen: [String: Int] = [:]
        for (index, attribute) in attributes.enumerated() {
            if let first = seen[attribute.name] {
                let said = names[first] == names[index] ? "'\(names[index])' is given twice"
                    : "'\(names[first])' and '\(names[index])' both name the attribute \(attribute.name)"
                throw ShellError(line: line, message: said)
            }
            seen[attribute.name] = index
        }
        return attributes
    }

    /// The attribute a header or key names; an unknown name is an error at `line`.
    private func importAttribute(_ name: String, of entity: EntityDescription, line: Int) throws -> AttributeDescription {
        guard let attribute = entity.attribute(named: name) else {
            let suggestion = closestName(to: name, among: entity.attributes.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            throw ShellError(line: line, message: "unknown attribute '\(name)' on \(entity.name)\(suggestion)")
        }
        return attribute
    }

    private func insert(_ values: [Value], columns: [String], into entity: EntityDescription, _ context: WriteContext,
                        line: Int) throws {
        do {
            // The engine's insert reuses its statement while the columns stay the same.
            try context.insert(entity.name, columns: columns, values: values)
        } catch let error as PortalError where error.kind != .interrupted {
            throw Self.insertError(error, into: entity.name, line: line)
        }
    }

    /// The engine's refusal of the record at `line`, kept as the cause.
    private static func insertError(_ error: PortalError, into entity: String, line: Int) -> ShellError {
        var refused = ShellError(line: line, message: "\(entity): \(error.description)")
        refused.cause = error
        return refused
    }

    /// Which columns SQLite gives numeric affinity (declared INTEGER, REAL, NUMERIC, DATE, …),
    /// where it turns text that reads as a number into that number. None on PostgreSQL, whose
    /// server reads text into each column's type exactly.
    private func numericColumns(_ attributes: [AttributeDescription]) -> [Bool] {
        guard (try? requireDatabase().store.server) == nil else { return attributes.map { _ in false } }
        return attributes.map {
            switch ColumnAffinity(declaredType: $0.declaredType) {
            case .integer, .real, .numeric: return true
            case .text, .blob: return false
            }
        }
    }

    /// Checks a record's values before they are stored: in a column of numeric affinity, an
    /// integer past the 64-bit range is refused (SQLite would store it as a rounded REAL
    /// without a word).
    static func checkValues(_ values: [Value], numeric: [Bool], columns: [String], line: Int) throws(ShellError) {
        for index in values.indices where numeric[index] {
            guard case .text(let text) = values[index] else { continue }
            try checkNumber(text, column: columns[index], line: line)
        }
    }

    /// `checkValues` of a csv or tsv record's fields.
    static func checkFields(_ fields: [InsertField], numeric: [Bool], columns: [String], line: Int) throws(ShellError) {
        for index in fields.indices where numeric[index] {
            switch fields[index] {
            // No integer past the range is shorter than 19 digits: most fields need no String.
            case .text(let bytes) where bytes.count >= 19:
                try checkNumber(String(decoding: bytes, as: UTF8.self), column: columns[index], line: line)
            case .value(.text(let text)): try checkNumber(text, column: columns[index], line: line)
            default: continue
            }
        }
    }

    private static func checkNumber(_ text: String, column: String, line: Int) throws(ShellError) {
        guard ValueEncoding.isOutOfRangeInteger(text) else { return }
        throw ShellError(line: line, message: "\(column): \(text.trimmingWhitespace()) is past the range of a "
            + "64-bit integer, and would be stored rounded to a REAL (write it with an exponent, as 1e20, to store a REAL)")
    }
}

/// "importing… 42%" on standard error while an import runs, when it is a terminal.
final class ImportProgress {
    private let line: ProgressLine

    init(_ errors: OutputStream, enabled: Bool) {
        line = ProgressLine(errors, enabled: enabled)
    }

    /// Every 50,000 records: how many, and how far into the file.
    func update(_ count: Int, _ input: ImportInput) {
        guard count % 50_000 == 0 else { return }
        let percent = input.size > 0 ? ", \(min(100, input.position * 100 / input.size))%" : ""
        line.show("importing… \(count) records\(percent)")
    }

    /// Clears the line for what follows.
    func finish() { line.finish() }
}
