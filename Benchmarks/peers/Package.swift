// swift-tools-version:6.1
import PackageDescription

// The comparison of PortalEngine with GRDB.swift and with the SQLite C API, in one
// process. A package of its own, so the main package's `make test` never builds GRDB:
// `make bench-peers` runs it (release build).
let package = Package(
    name: "peers",
    dependencies: [
        .package(name: "portal-shell", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "peers",
            dependencies: [
                .product(name: "PortalSQLite", package: "portal-shell"),
                .product(name: "CBaseline", package: "portal-shell"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
