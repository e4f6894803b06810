import Foundation
import Testing

/// The man page and `help` cover every option `--help` lists and every command `help` lists.
@Suite struct DocsCommandLineTests {
    /// The options in the OPTIONS part of `--help`: `--long` names and `-x` short names.
    static func helpOptions(_ help: String) -> Set<String> {
        guard let start = help.range(of: "\nOPTIONS:\n") else { return [] }
        var names: Set<String> = []
        for line in help[start.upperBound...].split(separator: "\n") {
            // An option line is "  -e, --exec <TEXT>   Run …"; continuation lines are indented further.
            guard line.hasPrefix("  -") else { continue }
            let synopsis = line.dropFirst(2).components(separatedBy: "  ")[0].components(separatedBy: " <")[0]
            for name in synopsis.components(separatedBy: ", ") { names.insert(name) }
        }
        return names
    }

    /// The options the man page documents in OPTIONS (`.It Fl e , Fl -exec Ar text`).
    static func manOptions() throws -> Set<String> {
        var names: Set<String> = []
        for line in try Docs.manSection("OPTIONS") where line.hasPrefix(".It ") {
            let words = line.split(separator: " ").map(String.init)
            for (i, word) in words.enumerated() where word == "Fl" && i + 1 < words.count {
                names.insert("-" + words[i + 1])
            }
        }
        return names
    }

    @Test func everyOptionOfHelpIsInTheManPage() throws {
        let help = try Shell.run(["--help"])
        #expect(help.status == 0)
        let listed = Self.helpOptions(help.stdout)
        // Sanity: the parser of --help finds the options we know are there.
        #expect(listed.isSuperset(of: ["-e", "--exec", "--browse", "--format", "-h", "--help", "--version"]))
        let documented = try Self.manOptions()
        let missing = listed.subtracting(documented)
        #expect(missing.isEmpty, "options --help lists but the man page does not: \(missing.sorted())")
    }

    /// The command names of `help`: the first word of each alternative of each syntax.
    static func helpCommands(_ help: String) -> [String] {
        var names: [String] = []
        for line in help.split(separator: "\n") where line.hasPrefix("  ") {
            let body = line.dropFirst(2)
            guard let first = body.first, first.isLetter else { continue }
            let syntax = body.range(of: "  ").map { body[..<$0.lowerBound] } ?? body
            for alternative in syntax.components(separatedBy: " | ") {
                if let word = alternative.split(separator: " ").first, !names.contains(String(word)) {
                    names.append(String(word))
                }
            }
        }
        return names
    }

    /// The commands the man page has an entry for in COMMANDS (`.It Ic find …`).
    static func manCommands() throws -> Set<String> {
        var names: Set<String> = []
        for line in try Docs.manSection("COMMANDS") where line.hasPrefix(".It ") {
            let words = line.split(separator: " ").map(String.init)
            for (i, word) in words.enumerated() where word == "Ic" && i + 1 < words.count {
                names.insert(words[i + 1])
            }
        }
        return names
    }

    @Test func everyCommandOfHelpHasAManEntryAndItsOwnHelp() throws {
        let folder = try Docs.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try Shell.run([":memory:", "-e", "help"])
        #expect(help.status == 0)
        let commands = Self.helpCommands(help.stdout)
        #expect(commands.count >= 25, "help lists \(commands)")
        #expect(Set(commands).isSuperset(of: ["find", "count", "update", "browse", "sql", "quit"]))
        let documented = try Self.manCommands()
        let missing = commands.filter { !documented.contains($0) }
        #expect(missing.isEmpty, "commands help lists without a COMMANDS entry in the man page: \(missing)")
        for command in commands {
            let one = try Shell.run([":memory:", "-e", "help \(command)"])
            #expect(one.status == 0, "help \(command): \(one.stderr)")
            #expect(!one.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "help \(command) is empty")
        }
    }

    @Test func theManPageIsLintClean() throws {
        let folder = try Docs.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lint = try Docs.run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", Docs.manPage.path], in: folder)
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
    }
}
