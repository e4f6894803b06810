import ArgumentParser
import PortalShell

/// The values of the command line, as typed: checked by `validate` and turned into the shell's
/// `Configuration` by `shellConfiguration`. `PortalShellCommand` (ArgumentParser) fills them for
/// help, errors and the unusual; `quickParse` fills them for a plain run without ArgumentParser,
/// whose reflection over the command's property wrappers costs a one-command run most of its
/// start-up (its runtime conformance look-ups scan every conformance of the binary; the
/// `shell.startup` figure guards it).
struct CommandLineOptions: Equatable {
    var database: String?
    var exec: [String] = []
    var file: String?
    var browse = false
    var entity: String?
    var wherePredicate: String?
    var format: String?
    var noHeader = false
    var nullText: String?
    var param: [String] = []
    var readOnly = false
    var create = false
    var onError = "stop"
    var busyTimeout: Int?
    var color = "auto"
    var demo: String?
    var force = false
    var noInit = false
    var raw = false
    var model: String?
    var copyTo: String?
    var mixedColumns: String?

    /// The command line of a plain run, or nil for anything this parse leaves to ArgumentParser,
    /// which then parses it whole (help, version, completion scripts, `--`, an option value that
    /// starts with "-", an option or flag given twice, combined short flags, an unknown name,
    /// what `validate` refuses: ArgumentParser reports those). Where it gives options, they are
    /// ArgumentParser's for the same arguments (CommandLineOptionsTests compares the two).
    static func quickParse(_ arguments: [String]) -> CommandLineOptions? {
        var options = CommandLineOptions()
        var seen: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") && argument != "-" else {
                // A database name that looks like an option ("-", "--…") is left to ArgumentParser.
                guard options.database == nil, !argument.hasPrefix("-") else { return nil }
                options.database = argument
                continue
            }
            // `--name=value`: the value is joined to a long name only.
            var name = argument
            var joined: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                joined = String(argument[argument.index(after: equals)...])
                // ArgumentParser takes the next argument for an empty one (`--null= x`).
                guard joined != "" else { return nil }
            }
            // The value of an option: joined, or the next argument unless it looks like an
            // option (ArgumentParser's `.next` then reports a missing value: left to it).
            func value() -> String? {
                if let joined { return joined }
                guard index < arguments.endIndex else { return nil }
                let next = arguments[index]
                guard next == "-" || !next.hasPrefix("-") else { return nil }
                index += 1
                return next
            }
            // One value for an option that takes one: a second is left to ArgumentParser.
            func single() -> String? {
                guard seen.insert(name).inserted else { return nil }
                return value()
            }
            func flag() -> Bool {
                joined == nil && seen.insert(name).inserted
            }
            switch name {
            case "-e", "--exec": guard let v = value() else { return nil }; options.exec.append(v)
            case "-p", "--param": guard let v = value() else { return nil }; options.param.append(v)
            case "-f", "--file": guard let v = single() else { return nil }; options.file = v
            case "--entity": guard let v = single() else { return nil }; options.entity = v
            case "--where": guard let v = single() else { return nil }; options.wherePredicate = v
            case "--format": guard let v = single() else { return nil }; options.format = v
            case "--null": guard let v = single() else { return nil }; options.nullText = v
            case "--on-error": guard let v = single() else { return nil }; options.onError = v
            case "--busy-timeout":
                guard let v = single(), let milliseconds = Int(v) else { return nil }
                options.busyTimeout = milliseconds
            case "--color": guard let v = single() else { return nil }; options.color = v
            case "--demo": guard let v = single() else { return nil }; options.demo = v
            case "--model": guard let v = single() else { return nil }; options.model = v
            case "--copy-to": guard let v = single() else { return nil }; options.copyTo = v
            case "--mixed-columns": guard let v = single() else { return nil }; options.mixedColumns = v
            case "--browse": guard flag() else { return nil }; options.browse = true
            case "--no-header": guard flag() else { return nil }; options.noHeader = true
            case "-r", "--read-only": guard flag() else { return nil }; options.readOnly = true
            case "--create": guard flag() else { return nil }; options.create = true
            case "--force": guard flag() else { return nil }; options.force = true
            case "--no-init": guard flag() else { return nil }; options.noInit = true
            case "--raw": guard flag() else { return nil }; options.raw = true
            default: return nil
            }
        }
        guard (try? options.validate()) != nil else { return nil }
        return options
    }

    func validate() throws {
        if format.map({ OutputFormat(rawValue: $0.lowercased()) == nil }) ?? false {
            throw ValidationError("unknown format '\(format ?? "")' (expected \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if !["stop", "continue"].contains(onError) { throw ValidationError("--on-error must be 'stop' or 'continue'") }
        if Configuration.ColorMode(rawValue: color) == nil { throw ValidationError("--color must be auto, always or never") }
        if let busyTimeout, busyTimeout < 0 { throw ValidationError("--busy-timeout must not be negative") }
        for p in param where !p.contains("=") || p.hasPrefix("=") {
            throw ValidationError("--param '\(p)' must be NAME=VALUE")
        }
        if database == nil && demo == nil && (!exec.isEmpty || file != nil) {
            throw ValidationError("--exec and --file need a DATABASE")
        }
        if force && demo == nil { throw ValidationError("--force goes with --demo") }
        if raw && model != nil { throw ValidationError("--raw and --model cannot go together") }
        if copyTo != nil && (database == nil || browse || !exec.isEmpty || file != nil) {
            throw ValidationError("--copy-to needs a DATABASE and goes alone (no --browse, --exec or --file)")
        }
        if let mixedColumns {
            guard copyTo != nil else { throw ValidationError("--mixed-columns goes with --copy-to") }
            guard ["text", "skip"].contains(mixedColumns) else { throw ValidationError("--mixed-columns must be text or skip") }
        }
        if (entity != nil || wherePredicate != nil) && !browse {
            throw ValidationError("--entity and --where go with --browse")
        }
    }

    var shellConfiguration: Configuration {
        var c = Configuration()
        c.database = database
        c.exec = exec
        c.file = file
        c.browse = browse
        c.browseEntity = entity
        c.browseWhere = wherePredicate
        c.format = format.flatMap { OutputFormat(rawValue: $0.lowercased()) }
        c.header = !noHeader
        c.nullText = nullText
        c.parameters = param.compactMap { p in
            guard let eq = p.firstIndex(of: "=") else { return nil }
            return (String(p[..<eq]), String(p[p.index(after: eq)...]))
        }
        c.readOnly = readOnly
        c.create = create
        c.stopOnError = onError == "stop"
        if let busyTimeout { c.busyTimeout = busyTimeout }
        c.color = Configuration.ColorMode(rawValue: color) ?? .auto
        c.demoPath = demo
        c.force = force
        c.noInit = noInit
        c.coreData = raw ? .raw : model.map { .modelFile($0) } ?? .byModel
        c.copyTo = copyTo
        c.mixedColumns = mixedColumns.flatMap(Configuration.MixedColumns.init(rawValue:)) ?? .refuse
        return c
    }
}
