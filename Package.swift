// swift-tools-version: 6.1
import PackageDescription

/// Settings every target of ours shares: Swift 6 mode is the default for tools 6.x;
/// these make the public surface explicit and existentials visible.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Hangar",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "Hangar", targets: ["Hangar"]),
        // The SQLite engine (the system libsqlite3): `import HangarSQLite` brings `Hangar` with it.
        .library(name: "HangarSQLite", targets: ["HangarSQLite"]),
        // The PostgreSQL engine: its own product, so an app that uses only SQLite neither builds nor links postgres-nio.
        .library(name: "HangarPostgres", targets: ["HangarPostgres"]),
        // Encryption at rest (AES-GCM per document body): its own product, so only apps that encrypt link swift-crypto.
        .library(name: "HangarEncryption", targets: ["HangarEncryption"]),
        // Hangar Sync (issue 23): the protocol, the server side over any `DocumentStore`, the replica and its
        // transports (URLSession). No HTTP server framework: the Pilots example mounts the routes on Hummingbird.
        .library(name: "HangarSync", targets: ["HangarSync"]),
        .executable(name: "hangar", targets: ["HangarCLI"]),
        // Not API (the leading underscore): the Pilots example's models and the tests' process runner, for the
        // examples' own package (Examples/Pilots), whose tour, server and tests depend on this one by path.
        .library(name: "_PilotModels", targets: ["PilotModels"]),
        .library(name: "_HangarTestSupport", targets: ["HangarTestSupport"]),
    ],
    // Both on by default (so `swift test` here builds and runs everything). An app on SQLite alone turns them off on
    // its `.package(..., traits: [])` line and then never resolves postgres-nio or swift-crypto, nor their trees
    // (SwiftPM 6.3 leaves out a package only trait-disabled target dependencies name); `traits: ["Postgres"]` for
    // `HangarPostgres`, `["Encryption"]` for `HangarEncryption`. Without its trait a product's module cannot build.
    traits: [
        .default(enabledTraits: ["Postgres", "Encryption"]),
        .trait(name: "Postgres", description: "The HangarPostgres product (postgres-nio)."),
        .trait(name: "Encryption", description: "The HangarEncryption product (swift-crypto)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        // postgres-nio's own dependency, named for `PostgresStore`'s `Service` conformance.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.0.0"),
    ],
    targets: [
        // Layer 1: the value model and the codecs. Standard library only.
        .target(
            name: "PropertyList",
            swiftSettings: strictSettings
        ),
        // The system SQLite (libsqlite3-dev), used only by the SQLite engine (Sources/HangarSQLite).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Layer 2: models, documents, migrations, and the engine-neutral store (`DocumentStore`, the write rules,
        // the change feed, indexes, encryption, files). No SQL, no C, no engine.
        .target(
            name: "Hangar",
            dependencies: [
                "PropertyList",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Layer 3, an engine: the store in a SQLite file. Only this target (and test tools) sees CSQLite.
        .target(
            name: "HangarSQLite",
            dependencies: [
                "Hangar", "PropertyList", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Layer 3, an engine: the store on PostgreSQL (issue 13). Only this target and its tests see postgres-nio.
        .target(
            name: "HangarPostgres",
            dependencies: [
                "Hangar",
                "PropertyList",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                // postgres-nio's own dependency: a store is a `Service` of the application's `ServiceGroup`.
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Postgres"])
                ),
            ],
            swiftSettings: strictSettings
        ),
        // Encryption at rest: `AESGCMEncryption`, a `DocumentEncryption` on swift-crypto. Only this target (and the
        // CLI, the benchmarks and the tests) sees swift-crypto.
        .target(
            name: "HangarEncryption",
            dependencies: [
                "Hangar",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
        // The seed's Pilot/Airplane models, written against Hangar's public API only. Built here (HangarTests and the
        // pilots fuzz target use them) though they sit in the examples' folder; the examples' package (Examples/Pilots)
        // reaches them as `_PilotModels`.
        .target(
            name: "PilotModels",
            dependencies: ["Hangar"],
            path: "Examples/Pilots/Models",
            swiftSettings: strictSettings
        ),
        // Layer 3: sync between an embedded store and a server store, over any engine (Foundation only).
        .target(
            name: "HangarSync",
            dependencies: ["Hangar", "PropertyList"],
            swiftSettings: strictSettings
        ),
        // Layer 3: the command-line tool. The target is `HangarCLI` (Sources/HangarCLI), so no two paths differ only
        // by case on a case-insensitive disk (Sources/Hangar); the `hangar` product keeps the executable's name.
        .executableTarget(
            name: "HangarCLI",
            dependencies: [
                "PropertyList",
                "Hangar", "HangarSQLite",
                "HangarPostgres",
                "HangarEncryption",
                "HangarSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // What the test targets share: the process runner, the seeded generator, the stress store's configuration,
        // the save loop's checker (both engines) and the repository root. A regular target (not a test target), so the test targets and hangar-stress
        // can depend on it; never part of a product.
        .target(
            name: "HangarTestSupport",
            dependencies: [
                "Hangar", "HangarSQLite", "PropertyList", "CSQLite", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HangarTestSupport",
            swiftSettings: strictSettings
        ),
        // The behavioural suite every engine's tests run (generic over `DocumentStore`); a regular target, never
        // part of a product.
        .target(
            name: "StoreBehaviour",
            dependencies: ["Hangar", "HangarSQLite", "HangarEncryption", "PropertyList"],
            path: "Tests/StoreBehaviour",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "HangarTestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        // A child process for the kill -9 durability tests: writes in a loop, reports each acknowledged write; with
        // `--url`, to a PostgresStore (the PostgreSQL fault tests). Built with the tests (HangarTests and
        // HangarPostgresTests depend on it), never part of a product.
        .executableTarget(
            name: "hangar-stress",
            dependencies: ["Hangar", "HangarSQLite", "HangarPostgres", "PropertyList", "HangarTestSupport"],
            path: "Tests/Tools/hangar-stress",
            swiftSettings: strictSettings
        ),
        // A SQLite VFS for the I/O fault tests: the default one, failing writes and syncs on demand. Never part of
        // a product.
        .target(
            name: "HangarFaultVFS",
            dependencies: ["CSQLite"],
            path: "Tests/Tools/HangarFaultVFS"
        ),
        .testTarget(
            name: "HangarTests",
            dependencies: [
                "Hangar", "HangarSQLite", "PropertyList", "PilotModels", "HangarTestSupport", "StoreBehaviour",
                "hangar-stress",
                "HangarEncryption",
                "HangarFaultVFS",
                // Only for the README's PostgreSQL quick start (Examples/QuickStartTests.swift).
                "HangarPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // The SQLite engine's tests, named like HangarPostgresTests (SQLite<Aspect>Tests): the store, its faults
        // (the fault VFS), kill -9 durability (hangar-stress), the frozen migration corpus.
        .testTarget(
            name: "HangarSQLiteTests",
            dependencies: [
                "Hangar", "HangarSQLite", "PropertyList", "PilotModels", "HangarTestSupport", "StoreBehaviour",
                "hangar-stress",
                "HangarEncryption",
                "HangarFaultVFS",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // A child process for the PostgreSQL tests: opens a store's schema, as each instance of an app does.
        .executableTarget(
            name: "hangar-postgres-open",
            dependencies: ["HangarPostgres"],
            path: "Tests/Tools/hangar-postgres-open",
            swiftSettings: strictSettings
        ),
        // Against a real server: Scripts/with-postgres.sh starts one and exports HANGAR_TEST_POSTGRES_URL.
        .testTarget(
            name: "HangarPostgresTests",
            dependencies: [
                "HangarPostgres",
                "hangar-postgres-open",
                "hangar-stress",
                "Hangar", "HangarSQLite",
                "PropertyList",
                "HangarTestSupport",
                "HangarEncryption",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Hangar Sync over real SQLite stores and the real server logic, in process (the HTTP routes and the
        // processes are tested in the Pilots package).
        .testTarget(
            name: "HangarSyncTests",
            dependencies: ["HangarSync", "Hangar", "HangarSQLite", "PropertyList", "PilotModels", "HangarTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HangarCLITests",
            dependencies: ["HangarCLI", "HangarTestSupport", "HangarEncryption"],
            exclude: ["Snapshots"],
            swiftSettings: strictSettings
        ),
    ]
)
