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
        // The PostgreSQL engine: its own product, so an app that uses only SQLite neither builds nor links postgres-nio.
        .library(name: "HangarPostgres", targets: ["HangarPostgres"]),
        .executable(name: "hangar", targets: ["HangarCLI"]),
        .executable(name: "pilots", targets: ["pilots"]),
        // The Pilots store over HTTP (Hummingbird): the routes as a library an app can copy, and a thin executable.
        .library(name: "PilotsHTTP", targets: ["PilotsHTTP"]),
        .executable(name: "pilots-server", targets: ["pilots-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        // Only the Pilots server targets (and their tests) see these.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        // Layer 1: the value model and the codecs. Standard library only.
        .target(
            name: "PropertyList",
            swiftSettings: strictSettings
        ),
        // The system SQLite (libsqlite3-dev), used only by Sources/Hangar/Store.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Layer 2: models, documents, migrations, the store.
        .target(
            name: "Hangar",
            dependencies: ["PropertyList", "CSQLite"],
            swiftSettings: strictSettings
        ),
        // Layer 2, second engine: the store on PostgreSQL (issue 13). Only this target and its tests see postgres-nio.
        .target(
            name: "HangarPostgres",
            dependencies: [
                "Hangar",
                "PropertyList",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The seed's Pilot/Airplane models, written against Hangar's public API only.
        .target(
            name: "PilotModels",
            dependencies: ["Hangar"],
            path: "Examples/Pilots/Models",
            swiftSettings: strictSettings
        ),
        // `swift run pilots`: the Pilots example as a tour of the whole library (public API only), on SQLite or, with
        // `--url`, on PostgreSQL.
        .executableTarget(
            name: "pilots",
            dependencies: [
                "PilotModels",
                "Hangar",
                "HangarPostgres",
                "PropertyList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Pilots/Tour",
            swiftSettings: strictSettings
        ),
        // The Pilots store over HTTP: routes, content negotiation, errors and the change stream (Hummingbird 2).
        .target(
            name: "PilotsHTTP",
            dependencies: [
                "PilotModels",
                "Hangar",
                "PropertyList",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Pilots/Server/PilotsHTTP",
            swiftSettings: strictSettings
        ),
        // `swift run pilots-server`: opens the store (SQLite or PostgreSQL), metrics, graceful shutdown.
        .executableTarget(
            name: "pilots-server",
            dependencies: [
                "PilotsHTTP",
                "PilotModels",
                "Hangar",
                "HangarPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Pilots/Server/Main",
            swiftSettings: strictSettings
        ),
        // Layer 3: the command-line tool. The target is `HangarCLI` (Sources/HangarCLI), so no two paths differ only
        // by case on a case-insensitive disk (Sources/Hangar); the `hangar` product keeps the executable's name.
        .executableTarget(
            name: "HangarCLI",
            dependencies: [
                "PropertyList",
                "Hangar",
                "HangarPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // What the test targets share: the process runner, the seeded generator, the stress store's configuration,
        // the save loop's checker (both engines) and the repository root. A regular target (not a test target), so the test targets and hangar-stress
        // can depend on it; never part of a product.
        .target(
            name: "HangarTestSupport",
            dependencies: ["Hangar", "PropertyList"],
            path: "Tests/HangarTestSupport",
            swiftSettings: strictSettings
        ),
        // The behavioural suite every engine's tests run (generic over `DocumentStore`); a regular target, never
        // part of a product.
        .target(
            name: "StoreBehaviour",
            dependencies: ["Hangar", "PropertyList"],
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
            dependencies: ["Hangar", "HangarPostgres", "PropertyList", "HangarTestSupport"],
            path: "Tests/Tools/hangar-stress",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HangarTests",
            dependencies: [
                "Hangar", "PropertyList", "PilotModels", "HangarTestSupport", "StoreBehaviour", "hangar-stress",
                // Only for the README's PostgreSQL quick start (Examples/QuickStartTests.swift).
                "HangarPostgres",
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
                "Hangar",
                "PropertyList",
                "HangarTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PilotsTourTests",
            dependencies: ["pilots", "HangarTestSupport"],
            swiftSettings: strictSettings
        ),
        // The server as a child process, talked to over loopback HTTP (both engines).
        .testTarget(
            name: "PilotsServerTests",
            dependencies: ["pilots-server", "PilotModels", "Hangar", "HangarPostgres", "PropertyList", "HangarTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HangarCLITests",
            dependencies: ["HangarCLI", "HangarTestSupport"],
            exclude: ["Snapshots"],
            swiftSettings: strictSettings
        ),
    ]
)
