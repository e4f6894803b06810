import Foundation
import Testing

/// `make install` puts the binary, the man page and the completions under PREFIX, they work
/// from there, and `make uninstall` takes them all away again.
@Suite struct DocsInstallTests {
    static let installed = [
        "bin/portal-shell",
        "share/man/man1/portal-shell.1",
        "share/bash-completion/completions/portal-shell",
        "share/zsh/site-functions/_portal-shell",
        "share/fish/vendor_completions.d/portal-shell.fish",
    ]

    /// Terminal bold and underline (`X\u{8}X`, `_\u{8}X`) as plain text.
    static func withoutOverstrike(_ text: String) -> String {
        var result: [Character] = []
        for c in text {
            if c == "\u{8}" { _ = result.popLast() } else { result.append(c) }
        }
        return String(result)
    }

    @Test func installThenUninstall() throws {
        let prefix = try Docs.scratchFolder()
        defer { try? FileManager.default.removeItem(at: prefix) }
        // The debug binary the tests already built, not a release build (BIN=…).
        let make = try Docs.run("/usr/bin/make", ["-C", Shell.repository.path, "install", "PREFIX=\(prefix.path)",
                                                  "BIN=\(Shell.binary)"], in: prefix)
        #expect(make.status == 0, "make install: \(make.stderr)")
        for file in Self.installed {
            let path = prefix.appendingPathComponent(file).path
            #expect(FileManager.default.fileExists(atPath: path), "not installed: \(file)")
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 0, "empty: \(file)")
        }

        let version = try Docs.run(prefix.appendingPathComponent("bin/portal-shell").path, ["--version"], in: prefix)
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("portal-shell "))

        var env = Docs.environment(in: prefix)
        env["MANWIDTH"] = "80"
        env["MANPAGER"] = "cat"
        env["PAGER"] = "cat"
        // man-db's `man -l` where it is installed, else mandoc's (`make deps` installs mandoc).
        let page = prefix.appendingPathComponent("share/man/man1/portal-shell.1").path
        let manProgram = FileManager.default.isExecutableFile(atPath: "/usr/bin/man") ? "/usr/bin/man" : "/usr/bin/mandoc"
        let man = try Docs.run(manProgram, ["-l", page], in: prefix, environment: env)
        #expect(man.status == 0, "\(manProgram) -l: \(man.stderr)")
        let rendered = Self.withoutOverstrike(man.stdout)
        #expect(rendered.contains("PORTAL-SHELL(1)"))
        #expect(rendered.contains("EXIT STATUS"))

        let bashCompletion = try Docs.text(prefix.appendingPathComponent("share/bash-completion/completions/portal-shell"))
        #expect(bashCompletion.contains("--read-only"))

        let uninstall = try Docs.run("/usr/bin/make", ["-C", Shell.repository.path, "uninstall", "PREFIX=\(prefix.path)"],
                                     in: prefix)
        #expect(uninstall.status == 0, "make uninstall: \(uninstall.stderr)")
        for file in Self.installed {
            #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "left behind: \(file)")
        }
    }
}
