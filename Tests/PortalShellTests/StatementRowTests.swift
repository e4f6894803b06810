import Testing
@testable import PortalShell
import PortalEngine

/// The statement fast path of csv, tsv, json and ndjson writes the same bytes as the Value path.
@Suite struct StatementRowTests {
    @Test(arguments: [OutputFormat.csv, .tsv, .json, .ndjson])
    func fastPathMatchesValuePath(format: OutputFormat) throws {
        let connection = try Connection(path: ":memory:", readOnly: false, create: true)
        try connection.execute("""
            CREATE TABLE T (a INTEGER, b TEXT, c REAL, d BLOB);
            INSERT INTO T VALUES (1, 'plain', 1.5, NULL), (-2, 'comma, "quote"' || char(10) || 'tab' || char(9) || '\\', NULL, X'00FF'),
                (NULL, 'Zoë 東京', -0.0, X''), (3, CAST(X'41FF42' AS TEXT), 1e300, NULL), (4, '', 2.0, NULL);
            """)
        let sql = "SELECT * FROM T"
        let options = OutputOptions(format: format, nullText: "∅")

        let slow = OutputStream()
        let slowRenderer = makeRenderer(options, stream: slow)
        let statement = try connection.prepareUncached(sql)
        slowRenderer.begin(columns: (0..<statement.columnCount).map(statement.columnName))
        while try statement.step() { slowRenderer.row(statement.row().values) }
        slowRenderer.end()

        let fast = OutputStream()
        let fastRenderer = try #require(makeRenderer(options, stream: fast) as? StatementRowRenderer)
        let again = try connection.prepareUncached(sql)
        fastRenderer.begin(columns: (0..<again.columnCount).map(again.columnName))
        while try again.step() { fastRenderer.row(statement: again.handle, columnCount: Int32(again.columnCount)) }
        fastRenderer.end()

        #expect(fast.text == slow.text)
        #expect(fast.text.contains("Zoë 東京"))
    }
}
