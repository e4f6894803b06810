import Foundation
import Testing

/// Statements are built by the engine (its `Select`, `Update`, `Delete` values and dialect); the
/// browser only describes what it wants. This fails when SQL text is concatenated here again.
@Suite struct NoSQLTextTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PortalTUI")

    @Test func theBrowserWritesNoSQLKeywordsInStringLiterals() throws {
        let keywords = try Regex(#""[^"\n]*\b(SELECT|INSERT INTO|DELETE FROM|ORDER BY|WHERE|UPDATE [^"\n]* SET)\b[^"\n]*""#)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(keywords) {
                Issue.record("\(file):\(number + 1) builds SQL text: \(line)")
            }
        }
    }
}
