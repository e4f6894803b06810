import Foundation
import Testing

/// `generate swift` output for every Chinook entity type-checks against the built PortalEngine
/// module (swiftc -typecheck: no linking needed, so it is quick).
@Suite struct GenerateSwiftTests {
    @Test func chinookEntitiesCompileAgainstTheEngine() throws {
        let generated = try Shell.run([Shell.chinook, "-r", "-e", "generate swift"])
        #expect(generated.status == 0)
        #expect(generated.stdout.contains("public struct InvoiceLine: PortalEntity"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Entities.swift")
        // A use of the typed portal's requirements, so the conformance is really checked.
        try (generated.stdout + "\nlet names = [Track.entityName, Track.idAttribute, PlaylistTrack.entityName]\n")
            .write(to: source, atomically: true, encoding: .utf8)
        let modules = URL(fileURLWithPath: Shell.binary).deletingLastPathComponent().appendingPathComponent("Modules").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", source.path, "-I", modules,
                             "-Xcc", "-fmodule-map-file=\(Shell.repository.appendingPathComponent("Sources/CSQLite/module.modulemap").path)"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swiftc: \(output)")
    }
}
