import Foundation
import Testing

/// Every example command of the man page and of the README's tour runs on the demo database
/// with exit status 0 (writes go to a copy, in a scratch folder).
@Suite struct DocsExampleTests {
    func expectRuns(_ commands: [String], in folder: URL) throws {
        let database = folder.appendingPathComponent("fitness.sqlite").path
        for command in commands {
            let run = try Docs.run(Shell.binary, [database, "-e", command], in: folder)
            #expect(run.status == 0, "'\(command)' exited \(run.status): \(run.stderr)")
        }
    }

    @Test func everyCommandExampleOfTheManPageRuns() throws {
        let examples = Docs.displayLines(try Docs.manSection("COMMANDS"))
        #expect(examples.count >= 25, "found only \(examples.count) .Dl examples in COMMANDS")
        let folder = try Docs.exampleFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try expectRuns(examples, in: folder)
    }

    @Test func everyPredicateExampleOfTheManPageRuns() throws {
        let blocks = Docs.literalBlocks(try Docs.manSection("PREDICATES"))
        let examples = blocks.flatMap { $0 }.filter { !$0.isEmpty }
        #expect(examples.count >= 5)
        let folder = try Docs.exampleFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try expectRuns(examples, in: folder)
    }

    /// The EXAMPLES section's shell lines, in order, in a folder that starts without the
    /// database: the first example writes it with `--demo`.
    @Test func everyShellExampleOfTheManPageRuns() throws {
        let lines = Docs.literalBlocks(try Docs.manSection("EXAMPLES")).flatMap { $0 }.filter { !$0.isEmpty }
        #expect(lines.count >= 8)
        #expect(lines.first?.contains("--demo fitness.sqlite") == true, "the first example must create the database")
        let folder = try Docs.exampleFolder(withDatabase: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        for line in lines {
            #expect(line.hasPrefix("portal-shell ") || line.contains("| portal-shell "), "not a portal-shell example: \(line)")
            if line.contains("--browse") {
                let (status, screen) = try Docs.bashInTerminal(line, in: folder)
                #expect(status == 0, "'\(line)' in a terminal: status \(String(describing: status)), screen:\n\(screen)")
            } else {
                let run = try Docs.bash(line, in: folder)
                #expect(run.status == 0, "'\(line)' exited \(run.status): \(run.stderr)")
            }
        }
    }

    /// The README's tour is one session (shipped as share/examples/tour.portal): it runs as a
    /// script, stopping at the first error.
    @Test func theReadmeTourRuns() throws {
        let tour = try #require(try Docs.readmeBlock(after: "<!-- tour: every line runs in DocsExampleTests -->"))
        #expect(tour.split(separator: "\n").count >= 10)
        let shipped = try Docs.text(Shell.repository.appendingPathComponent("share/examples/tour.portal"))
        #expect(tour == shipped, "the README's tour differs from share/examples/tour.portal")
        let folder = try Docs.exampleFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("tour.portal")
        try tour.write(to: script, atomically: true, encoding: .utf8)
        let run = try Docs.run(Shell.binary, [folder.appendingPathComponent("fitness.sqlite").path, "-f", script.path],
                               in: folder)
        #expect(run.status == 0, "the tour stopped: \(run.stderr)")
        #expect(!run.stdout.isEmpty)
    }

    /// The README's shell lines (the block after the tour's marker for the command line).
    @Test func theReadmeCommandLinesRun() throws {
        let block = try #require(try Docs.readmeBlock(after: "<!-- command lines: every line runs in DocsExampleTests -->"))
        let lines = block.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(lines.count >= 3)
        let folder = try Docs.exampleFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for line in lines {
            let run = try Docs.bash(line, in: folder)
            #expect(run.status == 0, "'\(line)' exited \(run.status): \(run.stderr)")
        }
    }
}
