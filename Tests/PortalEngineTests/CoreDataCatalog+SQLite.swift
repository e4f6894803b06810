import PortalCoreData
import PortalEngine
import PortalSQLite

extension CoreDataCatalog {
    /// Reads the Core Data store on `connection`; `modelPath` (a `--model` argument) takes the
    /// place of the store's cached model.
    init(_ connection: Connection, modelPath: String? = nil) throws {
        try self.init(connection, raw: try SchemaReader.read(connection.handle), modelPath: modelPath)
    }
}
