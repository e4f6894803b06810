import PortalCoreData
import PortalEngine

/// A Core Data store opened by its model: the catalog that maps the names, and what the session
/// tells the user about it (where the model came from, what was ignored, why writes are refused).
struct CoreDataBanner {
    /// The banner's text, for interactive sessions.
    var text: String
    /// What the model reader or the mapping left out, empty when nothing was.
    var ignored: String
    /// Why the writes other than `create`, `update` and `delete` are refused (nil when they are allowed).
    var writeRefusal: String?

    /// The catalog for the file at `storePath` when it is a Core Data store to open by a model;
    /// nil for a plain database or `--raw`. `isCoreData` comes from the store's own first read
    /// (which also tells a file that cannot be read).
    static func catalog(_ choice: CoreDataOpening, storePath: String, isCoreData: Bool, displayPath: String)
        throws(ShellError) -> CoreDataStoreCatalog? {
        if choice == .raw || storePath == ":memory:" { return nil }
        guard isCoreData else {
            if case .modelFile = choice {
                throw ShellError.cannotOpen("cannot open '\(displayPath)' by a model: it is not a Core Data store "
                                   + "(it has no Z_PRIMARYKEY and Z_METADATA tables)")
            }
            return nil
        }
        let modelPath: String? = if case .modelFile(let path) = choice { path } else { nil }
        return CoreDataStoreCatalog(modelPath: modelPath)
    }

    /// The banner of `store`, opened with a Core Data catalog: its first read of the schema reads
    /// the model, once, for the banner and the session alike. Throws when the store's model
    /// cannot be read or does not match its tables.
    static func of(_ store: Store, displayPath: String) throws(ShellError) -> CoreDataBanner {
        do {
            guard let catalog = try store.read({ try $0.schema }).coreDataCatalog else {
                throw PortalError(.coreDataModel, "the store's schema has no Core Data model")
            }
            return banner(catalog)
        } catch {
            let reason = (error as? PortalError)?.message ?? "\(error)"
            throw ShellError.cannotOpen("cannot open '\(displayPath)' by its Core Data model: \(reason) "
                               + "(--raw opens its tables as they are)", cause: error)
        }
    }

    private static func banner(_ catalog: CoreDataCatalog) -> CoreDataBanner {
        let source = switch catalog.source {
        case .cache: "its model (from Z_MODELCACHE)"
        case .file(let path): "the model in \(path)"
        case .none: "names from Z_PRIMARYKEY and the columns (the store keeps no model: --model PATH gives one)"
        }
        let count = catalog.mapping.entities.count
        let refusal = "on a Core Data store the shell makes only create, update and delete, which keep Z_PK, Z_ENT, "
            + "Z_OPT, Z_MAX and the relationships; --raw opens the plain tables; nothing was written"
        let text = "A Core Data store: \(count) entities by \(source). create, update and delete keep Z_PK, Z_ENT, Z_OPT, "
            + "Z_MAX, relationships and delete rules; other writes are refused. --raw opens the plain tables."
        let ignored = catalog.mapping.notes.joined(separator: "; ")
        return CoreDataBanner(text: ignored.isEmpty ? text : text + "\nNote: " + ignored, ignored: ignored,
                              writeRefusal: refusal)
    }
}
