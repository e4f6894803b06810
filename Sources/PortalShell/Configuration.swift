import PortalPostgres

/// Everything the command line decided, handed by `main` to `PortalShell.run`.
public struct Configuration: Sendable {
    public enum ColorMode: String, Sendable, CaseIterable { case auto, always, never }
    public typealias MixedColumns = PostgresCopy.MixedColumns

    public var database: String?
    public var exec: [String] = []
    public var file: String?
    public var browse = false
    public var browseEntity: String?
    public var browseWhere: String?
    public var format: OutputFormat?
    public var header = true
    public var nullText: String?
    /// `--param NAME=VALUE`, in order.
    public var parameters: [(name: String, value: String)] = []
    public var readOnly = false
    public var create = false
    public var stopOnError = true
    public var busyTimeout = 5000
    public var color: ColorMode = .auto
    public var demoPath: String?
    /// `--force`: `--demo` may replace an existing file.
    public var force = false
    public var noInit = false
    /// How a Core Data store is opened: by its model (the default), as plain tables (`--raw`)
    /// or by a model file (`--model PATH`).
    public var coreData: CoreDataOpening = .byModel
    /// `--copy-to TARGET`: a PostgreSQL URL or an SQLite path.
    public var copyTo: String?
    /// `--mixed-columns text|skip`: what a copy to PostgreSQL does with a column whose values do
    /// not all fit its type (else it is refused before anything is written).
    public var mixedColumns: MixedColumns = .refuse

    public init() {}
}

/// How a Core Data (or SwiftData) store is opened (the man page's CORE DATA STORES).
public enum CoreDataOpening: Sendable, Equatable {
    /// By the model its `Z_MODELCACHE` keeps (else names from `Z_PRIMARYKEY` and the columns).
    case byModel
    /// As the plain tables it is made of.
    case raw
    /// By the model in this file (`.xcdatamodeld`, `.xcdatamodel`, its `contents`, `.mom`, `.momd`).
    case modelFile(String)
}

/// Exit statuses (the man page's EXIT STATUS).
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let commandFailed: Int32 = 1
    public static let usage: Int32 = 2
    public static let cannotOpen: Int32 = 3
    public static let interrupted: Int32 = 130
}
