import ArgumentParser
import PortalPredicate
import Testing
@testable import portal_shell

/// The command line's quick parse (`CommandLineOptions.quickParse`) against ArgumentParser's:
/// where the quick one gives options they are the same, and a plain run takes the quick path.
@Suite struct CommandLineOptionsTests {
    /// What ArgumentParser makes of `arguments`: nil where it reports an error, help or version.
    private func full(_ arguments: [String]) -> CommandLineOptions? {
        (try? PortalShellCommand.parseAsRoot(arguments) as? PortalShellCommand)?.options
    }

    @Test func plainRunsTakeTheQuickPath() {
        let runs: [[String]] = [
            ["db.sqlite", "-r", "--exec", "count Track"],
            [],
            ["db.sqlite"],
            ["db.sqlite", "-e", "find Track", "-e", "count Track", "--format", "json", "--no-header"],
            ["--demo", "fit.sqlite", "--force"],
            ["db.sqlite", "--browse", "--entity", "Track", "--where", "Composer == nil"],
            ["db.sqlite", "-f", "-", "--on-error", "continue", "--null=∅"],
            ["db.sqlite", "-p", "name=AC/DC", "--param", "n=1", "-e", "find Artist where Name == $name"],
            ["--busy-timeout", "100", "db.sqlite", "--color", "never", "--no-init", "--raw", "--create"],
            ["db.sqlite", "--model", "m.momd", "--read-only"],
            ["db.sqlite", "--copy-to", "copy.sqlite"],
            ["db.sqlite", "--copy-to", "postgresql:///music", "--mixed-columns", "text"],
            ["db.sqlite", "-e", ""],
        ]
        for arguments in runs {
            let quick = CommandLineOptions.quickParse(arguments)
            #expect(quick != nil, "\(arguments)")
            #expect(quick == full(arguments), "\(arguments)")
        }
    }

    @Test func whatItLeavesToArgumentParser() {
        let left: [[String]] = [
            ["--help"], ["-h"], ["--version"], ["--generate-completion-script", "bash"],
            ["db.sqlite", "-e"], ["db.sqlite", "-e", "-x"], ["db.sqlite", "--", "-e"],
            ["a.sqlite", "b.sqlite"], ["db.sqlite", "-rc"], ["db.sqlite", "--format", "xml"],
            ["db.sqlite", "-f", "a", "-f", "b"], ["db.sqlite", "-r", "-r"], ["db.sqlite", "--browse=yes"],
            ["db.sqlite", "-e=count t"], ["db.sqlite", "--busy-timeout", "soon"], ["-e", "count t"],
            ["db.sqlite", "--unknown"], ["-"], ["db.sqlite", "--entity", "T"], ["db.sqlite", "--null=", "x"],
            ["db.sqlite", "--mixed-columns", "text"], ["db.sqlite", "--copy-to", "c.sqlite", "--mixed-columns", "wide"],
        ]
        for arguments in left { #expect(CommandLineOptions.quickParse(arguments) == nil, "\(arguments)") }
    }

    /// ArgumentParser's declaration is the options' one list (`--help` shows it, the man page is
    /// checked against it): the quick parse takes each of its options in a plain run, and the
    /// random comparison below draws from all of them.
    @Test func theQuickParseTakesEveryOptionArgumentParserDeclares() {
        let declared = DocsCommandLineTests.helpOptions(PortalShellCommand.helpMessage(columns: 100))
        #expect(declared.isSuperset(of: ["-e", "--exec", "--browse", "--copy-to", "--help"]))
        let leftToArgumentParser: Set = ["-h", "--help", "--version"]
        // A plain run that gives `option` (with a value where it takes one), and what goes with it.
        func run(_ option: String) -> [String] {
            switch option {
            case "--entity", "--where": return ["db.sqlite", "--browse", option, "x"]
            case "--force": return ["--demo", "fit.sqlite", option]
            case "--demo": return [option, "fit.sqlite"]
            case "--mixed-columns": return ["db.sqlite", "--copy-to", "c.sqlite", option, "text"]
            case "--busy-timeout": return ["db.sqlite", option, "10"]
            case "--format": return ["db.sqlite", option, "csv"]
            case "--on-error": return ["db.sqlite", option, "continue"]
            case "--color": return ["db.sqlite", option, "never"]
            case "-p", "--param": return ["db.sqlite", option, "a=1"]
            case "-e", "--exec", "-f", "--file": return ["db.sqlite", option, "x"]
            case "--null", "--model", "--copy-to": return ["db.sqlite", option, "x"]
            default: return ["db.sqlite", option]
            }
        }
        for option in declared.subtracting(leftToArgumentParser).sorted() {
            let arguments = run(option)
            let quick = CommandLineOptions.quickParse(arguments)
            #expect(quick != nil && quick == full(arguments), "\(arguments)")
        }
        #expect(declared.subtracting(Self.randomNames).isEmpty, "\(declared.subtracting(Self.randomNames).sorted())")
    }

    static let randomNames: Set = ["-e", "--exec", "-p", "--param", "-f", "--file", "--browse", "--entity", "--where",
                                   "--format", "--no-header", "--null", "-r", "--read-only", "--create", "--on-error",
                                   "--busy-timeout", "--color", "--demo", "--force", "--no-init", "--raw", "--model",
                                   "--copy-to", "--mixed-columns", "--help", "--version", "-h"]

    /// Random command lines from the options' names, values (some that look like options, some
    /// invalid) and positionals: the quick parse, where it answers, answers as ArgumentParser.
    @Test func randomCommandLinesAgreeWithArgumentParser() {
        let names = Self.randomNames.sorted() + ["--", "--exec=count t", "--format=csv", "--null=", "--busy-timeout=-1",
                                                 "--no-header=1", "-rf"]
        let values = ["db.sqlite", "count t", "-", "json", "table", "never", "continue", "stop", "a=1", "=1",
                      "x", "10", "-3", "", "help", "-e", "--format", "always", "JSON", "text", "skip"]
        var random = SplitMix64(seed: 16)
        var quickCount = 0
        for _ in 0..<3000 {
            var arguments: [String] = []
            for _ in 0..<Int(random.next() % 7) {
                let pool = random.next() % 2 == 0 ? names : values
                arguments.append(pool[Int(random.next() % UInt64(pool.count))])
            }
            guard let quick = CommandLineOptions.quickParse(arguments) else { continue }
            quickCount += 1
            #expect(quick == full(arguments), "\(arguments)")
        }
        // The comparison must have had something to compare.
        #expect(quickCount > 300)
    }
}
