import Foundation
import Testing

/// Long chains, long IN lists and runs of NOT run through the real binary; what
/// SQLite's parser cannot take is refused with our error and a caret, never SQLite's.
@Suite struct PredicateSizeTests {
    static let db = Shell.chinook

    func count(_ predicate: String) throws -> Run {
        try Shell.run(["-r", Self.db, "-e", "count Track where " + predicate])
    }

    @Test func thousandOrTerms() throws {
        let r = try count((1...1_000).map { "TrackId == \($0)" }.joined(separator: " OR "))
        #expect(r.stderr == "")
        #expect(r.stdout == "1000\n")
        #expect(r.status == 0)
        let mixed = try count((1...1_000).map { "(TrackId == \($0) AND Milliseconds > 0)" }.joined(separator: " || "))
        #expect(mixed.stdout == "1000\n")
    }

    @Test func tenThousandInValues() throws {
        let r = try count("TrackId IN {" + (1...10_000).map(String.init).joined(separator: ", ") + "}")
        #expect(r.stderr == "")
        #expect(r.stdout == "3503\n")
    }

    @Test func runsOfNotCollapse() throws {
        let even = try count(String(repeating: "NOT ", count: 100) + "TrackId == 1")
        #expect(even.stderr == "")
        #expect(even.stdout == "1\n")
        let odd = try count(String(repeating: "NOT ", count: 101) + "TrackId == 1")
        #expect(odd.stdout == "3502\n")
    }

    @Test func tooDeepIsOurErrorWithACaret() throws {
        var predicate = "TrackId == 0"
        for i in 1...60 { predicate = "TrackId == \(i) OR (Milliseconds > 0 AND (\(predicate)))" }
        let r = try count(predicate)
        #expect(r.status == 1)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("error: the predicate nests too deeply for SQLite to run"))
        #expect(!r.stderr.contains("parser stack overflow\n"))
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        // The caret stands under the innermost comparison.
        if lines.count == 4, let caret = lines[2].firstIndex(of: "^") {
            let column = lines[2].distance(from: lines[2].startIndex, to: caret)
            #expect(lines[1].dropFirst(column).hasPrefix("TrackId == 0"))
        }
    }
}
