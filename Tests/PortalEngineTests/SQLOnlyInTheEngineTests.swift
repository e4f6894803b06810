import Foundation
import Testing

/// Statements are built by the engine (`Select`, `Insert`, `Upsert`, `Update`, `Delete`, rendered
/// by its dialect); the shell and the browser only describe what they want. This fails when SQL
/// text is concatenated outside the engine again. (`sql` passes the user's own text through,
/// and the demo's schema is DDL: neither is built from parts.)
@Suite struct SQLOnlyInTheEngineTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test(arguments: ["PortalShell", "PortalTUI", "portal-shell"])
    func noSQLKeywordsInStringLiterals(module: String) throws {
        let keywords = try Regex(#""[^"\n]*\b(SELECT|INSERT INTO|DELETE FROM|ORDER BY|WHERE|UPDATE [^"\n]* SET)\b[^"\n]*""#)
        let folder = Self.sources.appendingPathComponent(module)
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(keywords) {
                Issue.record("\(module)/\(file):\(number + 1) builds SQL text: \(line)")
            }
        }
    }

    /// The select of a find, first, count, get or projection is the engine's (`Select.find`),
    /// whose `find` and `count` run the same: the shell assembles none of its own.
    @Test func theShellAssemblesNoSelect() throws {
        let folder = Self.sources.appendingPathComponent("PortalShell")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(/\bSelect\(/) {
                Issue.record("PortalShell/\(file):\(number + 1) assembles a select: \(line)")
            }
        }
    }
}
