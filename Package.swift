// swift-tools-version: 6.1
import PackageDescription

/// Settings every target of ours shares: Swift 6 mode is the default for tools 6.x;
/// these make the public surface explicit and existentials visible.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    // hangar-check's planted faults (Sources/Hangar/PlantedFaults), compiled in only with the trait.
    .define("HANGAR_PLANTED_FAULTS", .when(traits: ["PlantedFaults"])),
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
        // Hangar Sync: the protocol, the server side over any `DocumentStore`, the replica and its transports
        // (URLSession, in process). Foundation only, so Apple apps take it with nothing else.
        .library(name: "HangarSync", targets: ["HangarSync"]),
        // The backend half on Hummingbird 2: document routes, Hangar Sync's routes, identity (bearer JWTs on
        // jwt-kit), ownership, idempotency, one error middleware. Its own product and trait `Hummingbird`.
        .library(name: "HangarHummingbird", targets: ["HangarHummingbird"]),
        // Hangar Sync's client transport on async-http-client (Linux apps, `hangar db sync`): its own product
        // and trait `HTTPClient`, so `HangarSync` stays Foundation-only.
        .library(name: "HangarSyncHTTPClient", targets: ["HangarSyncHTTPClient"]),
        // Hangar Studio: a store in a browser (overview, collections, documents with history and diffs, the live
        // feed, sync, health), `hangar studio` and mountable into any Hummingbird app. Trait `Hummingbird`.
        .library(name: "HangarStudio", targets: ["HangarStudio"]),
        // The Migration Kit: an app's format history, frozen and checked in its tests (`FormatHistory`), and what
        // `hangar formats` checks without app code. On the SQLite engine only, so `traits: []` apps have it.
        .library(name: "HangarTesting", targets: ["HangarTesting"]),
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
        .default(enabledTraits: ["Postgres", "Encryption", "Hummingbird", "HTTPClient"]),
        .trait(name: "Postgres", description: "The HangarPostgres product (postgres-nio)."),
        .trait(name: "Encryption", description: "The HangarEncryption product (swift-crypto)."),
        .trait(name: "Hummingbird", description: "The HangarHummingbird product (Hummingbird 2 and jwt-kit)."),
        .trait(name: "HTTPClient", description: "The HangarSyncHTTPClient product (async-http-client)."),
        .trait(
            name: "PlantedFaults",
            description:
                "hangar-check's planted faults, switched by HANGAR_PLANTED_FAULT: for its own tests, never an app."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        // postgres-nio's own dependency, named for `PostgresStore`'s `Service` conformance.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // 3 or 4: jwt-kit 5.8 needs swift-crypto 4.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        // Hummingbird's and async-http-client's own dependencies, named for the 431 handler, the tests' requests
        // and the byte buffers `HangarSyncHTTPClient` uses.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
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
        // Layer 4: the backend half on Hummingbird: routes any app mounts for its own collections.
        .target(
            name: "HangarHummingbird",
            dependencies: [
                "Hangar", "HangarSync", "PropertyList",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
                // Hummingbird's own: the 431 answer sits in its HTTP/1.1 channel.
                .product(
                    name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Logging", package: "swift-log"),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["Hummingbird"])),
            ],
            swiftSettings: strictSettings
        ),
        // Layer 4: Hangar Sync's client transport on async-http-client.
        .target(
            name: "HangarSyncHTTPClient",
            dependencies: [
                "HangarSync", "Hangar",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["HTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["HTTPClient"])),
            ],
            swiftSettings: strictSettings
        ),
        // Layer 5: Hangar Studio, pages and a JSON API over any store, on the backend library (Layer 4); its HTML,
        // CSS and JS are hand-written files embedded in the binary (no build step).
        .target(
            name: "HangarStudio",
            dependencies: [
                "Hangar", "HangarSync", "PropertyList", "HangarHummingbird",
                // `hangar studio --formats DIR`: the Migration Kit's histories and census on the Overview.
                "HangarTesting",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Assets/studio.html"), .embedInCode("Assets/studio.css"),
                .embedInCode("Assets/studio.js"), .embedInCode("Assets/pages.js"),
            ],
            swiftSettings: strictSettings
        ),
        // Layer 4: the Migration Kit, over the SQLite engine (a real store for the round trips it checks).
        .target(
            name: "HangarTesting",
            dependencies: ["Hangar", "HangarSQLite", "PropertyList"],
            swiftSettings: strictSettings
        ),
        // Layer 6: the command-line tool. The target is `HangarCLI` (Sources/HangarCLI), so no two paths differ only
        // by case on a case-insensitive disk (Sources/Hangar); the `hangar` product keeps the executable's name.
        .executableTarget(
            name: "HangarCLI",
            dependencies: [
                "PropertyList",
                "Hangar", "HangarSQLite",
                "HangarPostgres",
                "HangarEncryption",
                "HangarSync",
                "HangarSyncHTTPClient",
                "HangarStudio",
                "HangarTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `hangar studio`: the server's logs go to standard error; stdout holds one line.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
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
                "Hangar", "HangarSQLite", "PropertyList", "PilotModels", "HangarTestSupport",
                // The quick start on PostgreSQL (the Engines article), which shares the quick start's model
                // (Examples/QuickStartTests.swift).
                "HangarPostgres",
            ],
            swiftSettings: strictSettings
        ),
        // The SQLite engine's tests, named like HangarPostgresTests (SQLite<Aspect>Tests): the store, its faults
        // (the fault VFS), kill -9 durability (hangar-stress), the frozen format histories (the Migration Kit).
        .testTarget(
            name: "HangarSQLiteTests",
            dependencies: [
                "Hangar", "HangarSQLite", "PropertyList", "PilotModels", "HangarTestSupport", "StoreBehaviour",
                "HangarTesting",
                "hangar-stress",
                "HangarEncryption",
                "HangarFaultVFS",
                .product(name: "Logging", package: "swift-log"),
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
        // The backend library's routes, in process (HummingbirdTesting) over real SQLite stores.
        .testTarget(
            name: "HangarHummingbirdTests",
            dependencies: [
                "HangarHummingbird", "HangarSync", "Hangar", "HangarSQLite", "PropertyList", "PilotModels",
                "HangarTestSupport",
                // AsyncHTTPSyncTransport against these routes on a live port (SyncHTTP*Tests.swift).
                "HangarSyncHTTPClient",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTPClient"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(
                    name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // Hangar Studio in a real browser (chromium, chromedriver and selenium, driven by Tests/HangarStudioTests/
        // Browser/studio_browser.py) against a real `hangar studio` process; the API in process.
        .testTarget(
            name: "HangarStudioTests",
            dependencies: [
                "HangarStudio", "HangarCLI", "HangarTestSupport", "Hangar", "HangarSQLite", "HangarPostgres",
                "HangarSync",
                "PropertyList",
                // The HTTP layer the studio shares: its error statuses and path codec (StudioHTTPTests).
                "HangarHummingbird",
                // The API in process (StudioAPITests).
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(
                    name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
            ],
            exclude: ["Browser"],
            swiftSettings: strictSettings
        ),
        // The Migration Kit's own tests: each rule planted in a temporary copy of a history, freezing, generation.
        .testTarget(
            name: "HangarTestingTests",
            dependencies: ["HangarTesting", "Hangar", "HangarSQLite", "PropertyList", "HangarTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HangarCLITests",
            dependencies: [
                "HangarCLI", "HangarTestSupport", "Hangar", "HangarSQLite", "PropertyList", "HangarEncryption",
                // Stores with an app's indexes, to query through `db find --url` (DBFindTests).
                "HangarPostgres",
            ],
            exclude: ["Snapshots"],
            swiftSettings: strictSettings
        ),
    ]
)
