import Foundation
import Testing

/// Every public type and function of PortalEngine, PortalSQLite, PortalCoreData and PortalPredicate has a `///` doc comment
/// (attributes such as `@discardableResult` may stand between the comment and the declaration).
@Suite struct DocsAPICommentTests {
    static let declaration = try? NSRegularExpression(
        pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+((final|indirect|static|mutating|nonisolated|override|convenience|required)\s+)*(class|struct|enum|protocol|actor|typealias|func|init|subscript)\b"#)

    /// `path:line: declaration` for each public type or function without a doc comment.
    static func undocumented(in folder: String) throws -> [String] {
        let root = Shell.repository.appendingPathComponent(folder)
        let regex = try #require(declaration)
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        for file in files.sorted() where file.hasSuffix(".swift") {
            let lines = try Docs.text(root.appendingPathComponent(file)).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() {
                let range = NSRange(line.startIndex..., in: line)
                guard regex.firstMatch(in: line, range: range) != nil else { continue }
                var above = i - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let previous = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                if !previous.hasPrefix("///") && !previous.hasSuffix("*/") {
                    found.append("\(folder)/\(file):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return found
    }

    @Test(arguments: ["Sources/PortalEngine", "Sources/PortalSQLite", "Sources/PortalCoreData", "Sources/PortalPredicate"])
    func everyPublicTypeAndFunctionHasADocComment(folder: String) throws {
        let missing = try Self.undocumented(in: folder)
        #expect(missing.isEmpty, "public declarations without a /// comment:\n\(missing.joined(separator: "\n"))")
    }
}
