import ArgumentParser
import PortalShell
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// The command line, as ArgumentParser reads it: for help, version, completion
/// scripts, usage errors, and any command line `CommandLineOptions.quickParse` leaves to it.
/// `validate` and the configuration are `CommandLineOptions`' (one implementation for both parses).
struct PortalShellCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portal-shell",
        abstract: "A terminal database browser and shell for SQLite, PostgreSQL and Core Data stores, with NSPredicate queries.",
        discussion: """
            Examples:
              portal-shell                                   the demo database, interactively
              portal-shell music.sqlite                      a prompt on music.sqlite
              portal-shell music.sqlite -e 'find Track where Milliseconds > 300000 sort by Name limit 5'
              portal-shell music.sqlite -e 'count Track where Album.Title BEGINSWITH[c] "a"' --format json
              portal-shell music.sqlite -p name=AC/DC -e 'find Artist where Name == $name'
              portal-shell music.sqlite -f script.txt --on-error continue
              portal-shell music.sqlite --browse --entity Track --where 'Composer == nil'
              portal-shell postgresql://localhost/music      a prompt on a PostgreSQL database
              portal-shell NoteStore.sqlite -e 'count ICNote where folder.title == "Notes"'
                                                             a Core Data store, by its model's names
              portal-shell --demo fitness.sqlite
              portal-shell --generate-completion-script bash > /etc/bash_completion.d/portal-shell
            """,
        version: PortalShell.version
    )

    @Argument(help: ArgumentHelp("An SQLite file, a Core Data or SwiftData store (an SQLite file), a PostgreSQL URL (postgresql://…), or :memory:.", valueName: "DATABASE"))
    var database: String?

    @Option(name: [.short, .customLong("exec")], help: ArgumentHelp("Run TEXT as commands and exit (repeatable).", valueName: "TEXT"))
    var exec: [String] = []

    @Option(name: [.short, .customLong("file")], help: ArgumentHelp("Run the commands in PATH ('-' = standard input), then exit.", valueName: "PATH"))
    var file: String?

    @Flag(help: "Open the full-screen browser instead of the prompt.")
    var browse = false

    @Option(help: ArgumentHelp("With --browse: the entity to open on.", valueName: "NAME"))
    var entity: String?

    @Option(name: .customLong("where"), help: ArgumentHelp("With --browse: the entity's filter.", valueName: "PREDICATE"))
    var wherePredicate: String?

    @Option(help: ArgumentHelp("Output format: table, tsv, csv, json, ndjson, line, markdown (default: table on a terminal, tsv otherwise).", valueName: "F"))
    var format: String?

    @Flag(help: "Omit the header row in table, csv, tsv and markdown.")
    var noHeader = false

    @Option(name: .customLong("null"), help: ArgumentHelp("How NULL is shown (default NULL in table/line/markdown, empty in csv/tsv).", valueName: "TEXT"))
    var nullText: String?

    @Option(name: [.short, .customLong("param")], help: ArgumentHelp("Define $NAME for predicates, bound as text (repeatable).", valueName: "NAME=VALUE"))
    var param: [String] = []

    @Flag(name: [.short, .customLong("read-only")], help: "Open read-only: every write fails and the file is never modified.")
    var readOnly = false

    @Flag(help: "Create DATABASE if it does not exist.")
    var create = false

    @Option(help: ArgumentHelp("In scripted runs: stop at the first failing command, or continue.", valueName: "stop|continue"))
    var onError: String = CommandLineOptions().onError

    // No default value here: ArgumentParser would describe it on every parse, and an Int's
    // description goes through the runtime's dynamic casts at every start-up (`shell.startup` guards it).
    @Option(help: ArgumentHelp("How long to wait for another process's lock, in milliseconds (default 5000).", valueName: "MS"))
    var busyTimeout: Int?

    @Option(help: ArgumentHelp("auto: colour only on a terminal with NO_COLOR unset or empty.", valueName: "auto|always|never"))
    var color: String = CommandLineOptions().color

    @Option(help: ArgumentHelp("Write the demo database to PATH and exit.", valueName: "PATH"))
    var demo: String?

    @Flag(help: "With --demo: replace an existing file at PATH (and remove its stale -journal, -wal and -shm).")
    var force = false

    @Flag(help: "Skip the start-up commands file.")
    var noInit = false

    @Flag(help: "Open a Core Data store's plain tables (ZNOTE, Z_PK, …) instead of its model's names.")
    var raw = false

    @Option(help: ArgumentHelp("Open a Core Data store by the model in PATH (.xcdatamodeld, .xcdatamodel, its contents, .mom, .momd).", valueName: "PATH"))
    var model: String?

    @Option(help: ArgumentHelp("Copy every table of DATABASE (schema, rows, keys, indexes) into TARGET, a PostgreSQL URL (postgres://…) or a new SQLite file, and exit.", valueName: "TARGET"))
    var copyTo: String?

    @Option(help: ArgumentHelp("With --copy-to PostgreSQL: a column holding values its type cannot take (text in an INTEGER column) is copied as text, or its table skipped (default: the copy is refused before anything is written).", valueName: "text|skip"))
    var mixedColumns: String?

    mutating func validate() throws { try options.validate() }

    /// The values parsed, for `CommandLineOptions` to check and turn into the configuration.
    var options: CommandLineOptions {
        CommandLineOptions(database: database, exec: exec, file: file, browse: browse, entity: entity,
                           wherePredicate: wherePredicate, format: format, noHeader: noHeader, nullText: nullText,
                           param: param, readOnly: readOnly, create: create, onError: onError,
                           busyTimeout: busyTimeout, color: color, demo: demo, force: force, noInit: noInit,
                           raw: raw, model: model, copyTo: copyTo, mixedColumns: mixedColumns)
    }
}

if let options = CommandLineOptions.quickParse(Array(CommandLine.arguments.dropFirst())) {
    exit(PortalShell.run(options.shellConfiguration))
}

// Usage errors exit 2 (ArgumentParser would use 64); --help, --version and completion scripts exit 0.
do {
    var command = try PortalShellCommand.parseAsRoot()
    guard let parsed = command as? PortalShellCommand else {
        // --help comes back as ArgumentParser's own help command: running it prints the help.
        try command.run()
        exit(ExitStatus.success)
    }
    exit(PortalShell.run(parsed.options.shellConfiguration))
} catch {
    let code = PortalShellCommand.exitCode(for: error)
    let message = PortalShellCommand.fullMessage(for: error)
    if code == .success {
        if !message.isEmpty { print(message) }
        exit(ExitStatus.success)
    }
    // A usage error may echo what was typed (`--param`, a file name): escaped, line by line.
    var text = message.split(separator: "\n", omittingEmptySubsequences: false)
        .map { TerminalText.escaped(String($0)) }.joined(separator: "\n") + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(ExitStatus.usage)
}
