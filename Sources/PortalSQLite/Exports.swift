// `import PortalSQLite` is all a program that opens SQLite files needs: the engine comes with it.
@_exported import PortalEngine
