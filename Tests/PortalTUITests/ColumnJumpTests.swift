import Foundation
import PortalEngine
import Testing
@testable import PortalTUI

/// `0` and `$` move the cursor to the first and the last shown column, scrolling them into view.
@Suite struct ColumnJumpTests {
    @Test func zeroAndDollarJumpToTheFirstAndLastColumn() throws {
        let model = try makeModel(width: 24)
        model.press(.character("$"))
        #expect(model.cursorColumn == 2)
        #expect(model.screen.line(0).contains("ArtistId") || model.screen.line(1).contains("ArtistId"))
        model.press(.character("0"))
        #expect(model.cursorColumn == 0)
        #expect(model.columnOffset == 0)
        // A hidden last column is skipped.
        model.press(.character("$"), .character("-"), .character("0"), .character("$"))
        #expect(model.cursorColumn == 1)
    }
}
