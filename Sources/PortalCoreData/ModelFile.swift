import Foundation
import PortalEngine

/// Finds and reads the model a `--model` path names: an `.xcdatamodeld` folder (its current
/// version), an `.xcdatamodel` folder, its XML `contents` file, a compiled `.mom`, or a `.momd`
/// folder (its current version).
public enum ModelFile {
    /// The model at `path`.
    public static func read(_ path: String) throws -> CoreDataModel {
        let file = try resolve(path)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw PortalError(.coreDataModel, "cannot read the model file \(file)", path: file)
        }
        if URL(fileURLWithPath: file).lastPathComponent == "elements" {
            return try xcode3Model(data, file: file)
        }
        if data.starts(with: Array("bplist".utf8)) {
            return try ModelArchiveReader.model(archive: data, source: file)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PortalError(.coreDataModel, "\(file) is neither a compiled model nor XML", path: file)
        }
        return try XMLModelReader.model(xml: text, source: file)
    }

    /// The file to read for `path`.
    static func resolve(_ path: String) throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw PortalError(.fileNotFound, "no model at \(path)", path: path)
        }
        guard isFolder.boolValue else { return path }
        let folder = URL(fileURLWithPath: path)
        switch folder.pathExtension {
        case "xcdatamodeld":
            let version = try currentVersion(in: folder, listing: ".xccurrentversion", key: "_XCCurrentVersionName",
                                             suffix: ".xcdatamodel")
            return modelFile(in: folder.appendingPathComponent(version))
        case "momd":
            let version = try currentVersion(in: folder, listing: "VersionInfo.plist",
                                             key: "NSManagedObjectModel_CurrentVersionName", suffix: ".mom")
            return folder.appendingPathComponent(version.hasSuffix(".mom") ? version : version + ".mom").path
        default:
            return modelFile(in: folder)
        }
    }

    /// The file of an `.xcdatamodel` folder: its XML `contents`, or, in a model last saved by
    /// Xcode 3 or 4.0, the binary `elements` it kept instead.
    private static func modelFile(in folder: URL) -> String {
        let contents = folder.appendingPathComponent("contents").path
        let elements = folder.appendingPathComponent("elements").path
        if !FileManager.default.fileExists(atPath: contents), FileManager.default.fileExists(atPath: elements) {
            return elements
        }
        return contents
    }

    /// Xcode 3's binary `elements`: a keyed archive, read when its root is the model itself;
    /// otherwise (Xcode's own editing classes) refused with the way to a readable file.
    private static func xcode3Model(_ data: Data, file: String) throws -> CoreDataModel {
        do {
            return try ModelArchiveReader.model(archive: data, source: file)
        } catch {
            throw PortalError(.coreDataModel, "\(file) is the binary model format of Xcode 3 and 4.0, which this version "
                              + "does not read: open the model in a later Xcode (which saves it as XML `contents`) or give "
                              + "the compiled model (.momd or .mom in the app's bundle)", path: file)
        }
    }

    /// The version the folder's property list names current, else its last version by name.
    private static func currentVersion(in folder: URL, listing: String, key: String, suffix: String) throws -> String {
        if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(listing).path),
           let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
           let name = plist[key] as? String, !name.isEmpty {
            return name
        }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(suffix) }
            // "App", "App 2", …, "App 10": by name without the suffix, numbers as numbers.
            .sorted { $0.dropLast(suffix.count).compare($1.dropLast(suffix.count), options: .numeric) == .orderedAscending }
        guard let last = versions.last else {
            throw PortalError(.coreDataModel, "\(folder.path) holds no \(suffix) version", path: folder.path)
        }
        return last
    }
}
