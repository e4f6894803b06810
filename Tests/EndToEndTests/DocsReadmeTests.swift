import Foundation
import Testing

/// The README's Swift example is the code that PortalEngineTests compiles and runs.
@Suite struct DocsReadmeTests {
    static let begin = "// README-EXAMPLE-BEGIN\n"
    static let end = "// README-EXAMPLE-END\n"

    @Test func theSwiftExampleIsTheTestedCode() throws {
        let source = try Docs.text(Docs.readmeExample)
        let start = try #require(source.range(of: Self.begin))
        let stop = try #require(source.range(of: Self.end, range: start.upperBound..<source.endIndex))
        let tested = String(source[start.upperBound..<stop.lowerBound])
        #expect(tested.contains("Portal<"))
        let shown = try #require(try Docs.readmeBlock(after: "<!-- swift example: Tests/ReadmeExample/ReadmeExample.swift -->"))
        #expect(shown == tested, "README's Swift block differs from ReadmeExample.swift (copy the file's block into the README)")
    }

    @Test func thePackageSnippetNamesARealProduct() throws {
        let snippet = try #require(try Docs.readmeBlock(after: "<!-- package snippet -->"))
        let manifest = try Docs.text(Shell.repository.appendingPathComponent("Package.swift"))
        #expect(snippet.contains(".product(name: \"PortalSQLite\", package: \"portal-shell\")"))
        #expect(manifest.contains(".library(name: \"PortalSQLite\", targets: [\"PortalSQLite\"])"))
        #expect(manifest.contains("name: \"portal-shell\""))
    }
}
