import PortalEngine

extension CoreDataCatalog {
    /// Reads the Core Data store on `connection`; `modelPath` (a `--model` argument) takes the
    /// place of the store's cached model.
    public init(_ connection: Connection, modelPath: String? = nil) throws {
        try self.init(connection, raw: try SchemaReader.read(connection.handle), modelPath: modelPath)
    }
}
