// swift-tools-version: 6.1
// The Pilots example as a package of its own, so an app that depends on Hangar never resolves what only the example
// needs (Hummingbird, swift-prometheus, service-lifecycle): the tour (`swift run pilots`), the store over HTTP
// (`PilotsHTTP`, `swift run pilots-server`) and their tests. The models (`Models/`) are built by the root package,
// which its own tests need too, and reach this one as the underscored product `_PilotModels`.
//
//     swift run --package-path Examples/Pilots pilots
//     Scripts/with-postgres.sh swift test --package-path Examples/Pilots
import PackageDescription

/// The root package's settings: Swift 6 mode; the public surface explicit and existentials visible.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Pilots",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "pilots", targets: ["pilots"]),
        // The Pilots store over HTTP (Hummingbird): the application as a library an app can copy, and a thin
        // executable.
        .library(name: "PilotsHTTP", targets: ["PilotsHTTP"]),
        .executable(name: "pilots-server", targets: ["pilots-server"]),
    ],
    // `--traits PlantedFaults` builds the pilots-server hangar-check's planted-fault runs use (off by default).
    traits: [.trait(name: "PlantedFaults", description: "Hangar's planted faults, for hangar-check's own tests.")],
    dependencies: [
        // Without the Encryption trait (nothing here encrypts): swift-crypto is then resolved for jwt-kit alone.
        .package(
            name: "Hangar", path: "../..",
            traits: [
                "Postgres", "Hummingbird", "HTTPClient",
                .trait(name: "PlantedFaults", condition: .when(traits: ["PlantedFaults"])),
            ]),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Bearer tokens (HS256 JWTs) of `pilots-server --auth-key`.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // The sync tests' HTTP client (`HTTPClient.shared` under `AsyncHTTPSyncTransport`).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
    ],
    targets: [
        // `swift run pilots`: the Pilots example as a tour of the whole library (public API only), on SQLite or, with
        // `--url`, on PostgreSQL.
        .executableTarget(
            name: "pilots",
            dependencies: [
                .product(name: "_PilotModels", package: "Hangar"),
                .product(name: "Hangar", package: "Hangar"),
                .product(name: "HangarSQLite", package: "Hangar"),
                .product(name: "HangarPostgres", package: "Hangar"),
                .product(name: "HangarSync", package: "Hangar"),
                .product(name: "PropertyList", package: "Hangar"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tour",
            swiftSettings: strictSettings
        ),
        // The Pilots store over HTTP: `buildApplication`, the routes, content negotiation, errors and the change
        // stream (Hummingbird 2), on either engine.
        .target(
            name: "PilotsHTTP",
            dependencies: [
                .product(name: "_PilotModels", package: "Hangar"),
                .product(name: "Hangar", package: "Hangar"),
                .product(name: "HangarSQLite", package: "Hangar"),
                .product(name: "HangarPostgres", package: "Hangar"),
                .product(name: "HangarSync", package: "Hangar"),
                .product(name: "PropertyList", package: "Hangar"),
                .product(name: "HangarHummingbird", package: "Hangar"),
                // `pilots-server --studio`: Hangar Studio at /studio.
                .product(name: "HangarStudio", package: "Hangar"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Server/PilotsHTTP",
            swiftSettings: strictSettings
        ),
        // `swift run pilots-server`: the command line, logging, Prometheus metrics, the signals.
        .executableTarget(
            name: "pilots-server",
            dependencies: [
                "PilotsHTTP",
                .product(name: "Hangar", package: "Hangar"),
                .product(name: "HangarSQLite", package: "Hangar"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Server/Main",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PilotsTourTests",
            dependencies: ["pilots", .product(name: "_HangarTestSupport", package: "Hangar")],
            swiftSettings: strictSettings
        ),
        // The routes in process (HummingbirdTesting), on both engines; the process itself (the `listening on` line,
        // SIGTERM, kill -9, two instances) as a child process.
        .testTarget(
            name: "PilotsServerTests",
            dependencies: [
                "PilotsHTTP",
                "pilots-server",
                .product(name: "_PilotModels", package: "Hangar"),
                .product(name: "HangarSync", package: "Hangar"),
                .product(name: "HangarSyncHTTPClient", package: "Hangar"),
                .product(name: "HangarHummingbird", package: "Hangar"),
                .product(name: "Hangar", package: "Hangar"),
                .product(name: "HangarSQLite", package: "Hangar"),
                .product(name: "HangarPostgres", package: "Hangar"),
                .product(name: "PropertyList", package: "Hangar"),
                .product(name: "_HangarTestSupport", package: "Hangar"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
