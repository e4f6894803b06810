import Testing
@testable import PortalShell

/// The one table of commands: every name and alias calls its own command, no word is claimed
/// twice, and `help`, the command list and completion are read from it.
@Suite struct CommandSpecTests {
    @Test func everyNameAndAliasCallsItsCommand() {
        var seen: [String: String] = [:]
        for spec in CommandParser.specs {
            for word in spec.names + spec.aliases {
                #expect(seen[word] == nil, "'\(word)' is claimed by \(seen[word] ?? "") and \(spec.name)")
                seen[word] = spec.name
                #expect(CommandSpec.named(word)?.name == spec.name)
                // Parsed, the word is never an unknown command (its arguments may be missing).
                do { _ = try CommandParser.parse(word) } catch {
                    #expect(!error.message.hasPrefix("unknown command"), "\(word): \(error.message)")
                }
            }
        }
    }

    @Test func helpTheCommandListAndCompletionComeFromTheTable() {
        #expect(Help.entries.map(\.name) == CommandParser.specs.flatMap { spec in spec.usages.map { _ in spec.name } })
        #expect(commandNames == CommandParser.specs.flatMap(\.names))
        #expect(Completion.entityCommands.isSuperset(of: ["find", "count", "update", "browse", "swift"]))
        #expect(!Completion.entityCommands.contains("begin"))
        #expect(Help.text(for: "q") == Help.text(for: "quit"))
    }
}
