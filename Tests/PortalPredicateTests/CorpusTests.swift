import Foundation
import Testing
@testable import PortalPredicate

/// A corpus of predicate strings collected from public Apple-platform code
/// (Fixtures/real-predicates.tsv: `predicate<TAB>source`, `#` lines are comments). Each is
/// parsed, with a plausible argument for each `%` placeholder, and must print back to itself.
@Suite struct CorpusTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real-predicates.tsv")

    /// The lines of the corpus: the predicate and where it was found.
    static func entries() throws -> [(predicate: String, source: String)] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let tab = line.firstIndex(of: "\t") else { return nil }
            return (String(line[..<tab]), String(line[line.index(after: tab)...]))
        }
    }

    /// An argument of the kind each placeholder expects: a key for `%K`, a number for numeric
    /// printf specifiers, text otherwise.
    static func arguments(for predicate: String) -> [Argument] {
        guard let tokens = try? Lexer.tokenize(predicate) else { return [] }
        return tokens.compactMap { token -> Argument? in
            guard case .formatArgument(let form) = token.kind else { return nil }
            switch form.last {
            case "K": return .value("key")
            case "@", "s", "S": return .value("text")
            case "e", "E", "f", "F", "g", "G", "a", "A": return .value(.real(1.5))
            default: return .value(7)
            }
        }
    }

    @Test func realPredicatesParseAndRoundTrip() throws {
        let entries = try Self.entries()
        #expect(entries.count >= 300)
        var rejected: [String] = []
        for (predicate, source) in entries {
            let query: Query
            do {
                query = try Query.parse(predicate, arguments: Self.arguments(for: predicate))
            } catch {
                rejected.append("\(predicate)  [\(source)]: \(error)")
                continue
            }
            let printed = query.description
            #expect(try Query.parse(printed) == query, "\(predicate) printed as \(printed)")
        }
        let accepted = entries.count - rejected.count
        print("corpus: \(accepted) of \(entries.count) real predicates accepted "
              + "(\(accepted * 1000 / max(entries.count, 1) / 10).\(accepted * 1000 / max(entries.count, 1) % 10) %)")
        for line in rejected { print("corpus rejects: \(line)") }
        // Every string in the file is Apple syntax (Realm's own dialect is left out), so all parse.
        #expect(rejected.isEmpty)
    }
}
