import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

/// The relationships declared with `relate`, kept per database file (by its real path) in
/// `$XDG_CONFIG_HOME/portal-shell/relationships` (else `~/.config/…`), one JSON object a line:
/// `{"database":…,"entity":…,"column":…,"destination":…,"destinationColumn":…}`.
enum SavedRelationships {
    static func filePath() -> String? {
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/portal-shell/relationships" }
        if let home = environment("HOME"), !home.isEmpty { return home + "/.config/portal-shell/relationships" }
        return nil
    }

    /// The key a database's relationships are saved under: its real path; nil for one that is
    /// not a file (`:memory:`), whose relationships last for the session only.
    static func databaseKey(_ path: String) -> String? {
        guard path != ":memory:", !path.hasPrefix("file:") else { return nil }
        return ShellDatabase.resolvedPath(path)
    }

    /// Every saved relationship, with the database it belongs to. A missing or unreadable
    /// file holds none (it is only a convenience).
    static func all() -> [(database: String, key: ForeignKey)] {
        guard let path = filePath(), let input = ImportInput(path: path),
              let records = try? JSONReader.records(input, lines: true) else { return [] }
        return records.compactMap { record in
            var fields: [String: String] = [:]
            for field in record.fields { if case .text(let text) = field.value { fields[field.name] = text } }
            guard let database = fields["database"], let entity = fields["entity"], let column = fields["column"],
                  let destination = fields["destination"] else { return nil }
            let destinationColumn = fields["destinationColumn"] ?? ""
            return (database, ForeignKey(from: entity, to: destination, fromColumns: [column],
                                         toColumns: destinationColumn.isEmpty ? [] : [destinationColumn]))
        }
    }

    static func load(for databasePath: String) -> [ForeignKey] {
        guard let database = databaseKey(databasePath) else { return [] }
        return all().filter { $0.database == database }.map(\.key)
    }

    /// Replaces the saved relationships of the database; returns the file written (nil: none is,
    /// for a database that is not a file).
    @discardableResult
    static func save(_ keys: [ForeignKey], for databasePath: String) throws -> String? {
        guard let database = databaseKey(databasePath) else { return nil }
        guard let path = filePath() else { throw ShellError("cannot save the relationship: neither XDG_CONFIG_HOME nor HOME is set") }
        let kept = all().filter { $0.database != database } + keys.map { (database, $0) }
        var text = ""
        for (database, key) in kept {
            let fields = [("database", database), ("entity", key.from), ("column", key.fromColumns.first ?? ""),
                          ("destination", key.to), ("destinationColumn", key.toColumns.first ?? "")]
            text += "{" + fields.map { JSONText.string($0.0) + ":" + JSONText.string($0.1) }.joined(separator: ",") + "}\n"
        }
        if let slash = path.lastIndex(of: "/") { try DemoDatabase.makeDirectories(String(path[..<slash])) }
        let file = try ExportFile(path)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(file.descriptor, $0.baseAddress, $0.count) }
        file.synchronize()
        Glibc.close(file.descriptor)
        guard written == bytes.count else {
            file.discard()
            throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        try file.commit()
        return path
    }
}
