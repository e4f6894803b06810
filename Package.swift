// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "portal-shell",
    products: [
        .library(name: "PortalEngine", targets: ["PortalEngine"]),
        .library(name: "PortalSQLite", targets: ["PortalSQLite"]),
        .library(name: "PortalPostgres", targets: ["PortalPostgres"]),
        .library(name: "PortalCoreData", targets: ["PortalCoreData"]),
        .library(name: "PortalPredicate", targets: ["PortalPredicate"]),
        .executable(name: "portal-shell", targets: ["portal-shell"]),
        .executable(name: "portal-bench", targets: ["portal-bench"]),
        // The C baselines, for the peer comparison in Benchmarks/peers (a package of its own).
        .library(name: "CBaseline", targets: ["CBaseline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `make docs`: the PortalEngine DocC catalog (a plugin: built only when asked for).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries from Debian, each behind a small shim header.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CLibedit", providers: [.apt(["libedit-dev"])]),
        // Core Data keeps its model cache as raw DEFLATE; Foundation on Linux cannot inflate it.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The benchmark baselines: the same work written against the SQLite C API.
        .target(
            name: "CBaseline",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),

        .target(name: "PortalPredicate"),
        // The backend-neutral engine: values, statements, dialects, the compiler, schema, store,
        // contexts and the typed layer. It links no C library.
        .target(name: "PortalEngine", dependencies: ["PortalPredicate"]),
        // Core Data stores: the model's readers (zlib inflates the store's model cache), the
        // mapping of entities onto tables, the catalog and the write policy that keeps Core
        // Data's bookkeeping.
        .target(name: "PortalCoreData", dependencies: ["PortalEngine", "PortalPredicate", "CZlib"]),
        // SQLite: the connection and statement, its backend, schema reader, SQL functions.
        .target(name: "PortalSQLite", dependencies: ["PortalEngine", "PortalPredicate", "CSQLite"]),
        // libpq (Debian's libpq-dev), loaded on first use instead of linked (see its header).
        .target(name: "CLibpqLoader"),
        // PostgreSQL through libpq: the connection, its dialect, copying a database up.
        .target(name: "PortalPostgres", dependencies: ["PortalEngine", "PortalSQLite", "PortalPredicate", "CLibpqLoader"]),
        .target(name: "PortalTUI", dependencies: ["PortalEngine", "PortalSQLite", "CNcurses"]),
        .target(name: "PortalShell", dependencies: ["PortalEngine", "PortalSQLite", "PortalPostgres", "PortalCoreData", "PortalTUI", "CLibedit",
                                                    "CSQLite"]),

        .executableTarget(
            name: "portal-shell",
            dependencies: ["PortalShell", "PortalTUI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "portal-bench",
            dependencies: ["PortalEngine", "PortalSQLite", "PortalPostgres", "PortalShell", "PortalTUI", "CBaseline", "CSQLite"]
        ),

        // Fixtures/ holds test data read by path (the corpus of real predicate strings).
        .testTarget(name: "PortalPredicateTests", dependencies: ["PortalPredicate", "DifferentialSupport"], exclude: ["Fixtures"]),
        // What the SQLite and PostgreSQL differential tests share: the seeded random predicate
        // generator and docs/predicates.md's cases with their hand-written SQL.
        .target(name: "DifferentialSupport", dependencies: ["PortalPredicate"], path: "Tests/DifferentialSupport"),
        .target(name: "ReadmeExample", dependencies: ["PortalEngine", "PortalSQLite"], path: "Tests/ReadmeExample"),
        // Foundation as the oracle of `#Predicate` on SQLite and PostgreSQL: a music schema with
        // relationships, random predicates built from PredicateExpressions, the comparison.
        .target(name: "FoundationOracle", dependencies: ["PortalEngine", "PortalSQLite"], path: "Tests/FoundationOracle"),
        .testTarget(name: "PortalEngineTests", dependencies: ["PortalEngine", "PortalSQLite", "PortalCoreData", "CSQLite", "DifferentialSupport", "ReadmeExample",
                                                           "FoundationOracle"]),
        .testTarget(name: "PortalShellTests", dependencies: ["PortalShell", "PortalSQLite", "PortalCoreData"]),
        .testTarget(name: "PortalTUITests", dependencies: ["PortalTUI", "PortalSQLite", "PortalCoreData"]),
        // Needs a PostgreSQL server: `make test` starts a throwaway one (scripts/postgres-test-server).
        .testTarget(name: "PortalPostgresTests", dependencies: ["PortalPostgres", "PortalEngine", "PortalSQLite", "CSQLite", "DifferentialSupport",
                                                             "ReadmeExample", "FoundationOracle"]),
        // PortalTUI: the docs tests find the keys the browser handles by driving its model.
        .testTarget(name: "EndToEndTests", dependencies: ["portal-shell", "PortalTUI", "PortalEngine", "PortalSQLite", "PortalPostgres",
                                                        "PortalCoreData", "DifferentialSupport"],
                    exclude: ["Expected"]),
    ],
    swiftLanguageModes: [.v6]
)
