// swift-tools-version: 6.1
// The benchmark is its own package (STYLE #24), so the main package's `swift build` / `swift test` never builds it.
// Run: `cd Benchmarks && swift run -c release hangar-bench [--quick] [--filter NAME]`.
// The store rows (`--filter store`) need libsqlite3-dev, as the root package does; the libplist contender needs
// libplist-dev (`.ci/run` installs both). The datasets need python3, the process rows plistutil (libplist-utils).
// The PostgreSQL rows (`--filter postgres`) need a server: HANGAR_BENCH_POSTGRES_URL or HANGAR_TEST_POSTGRES_URL.
import PackageDescription

let package = Package(
    name: "HangarBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hangar-bench", targets: ["hangar-bench"]),
        // The `server` section's processes: the hand-written baseline server and the HTTP load generator.
        .executable(name: "pilots-baseline-server", targets: ["pilots-baseline-server"]),
        .executable(name: "hangar-load", targets: ["hangar-load"]),
    ],
    dependencies: [
        // The engines and encryption; not the HTTP products (the benchmark measures pilots-server as a process).
        .package(name: "Hangar", path: "..", traits: ["Postgres", "Encryption"]),
        // The raw baseline of the PostgreSQL rows (`--filter postgres`): the same client the store uses.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
        // The baseline server of the `server` section (pilots-server's peer) and the load generator's HTTP/1.1 client.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Counts malloc-family calls (glibc only), so each row can report allocations per operation.
        .target(name: "CAllocationCounter"),
        // The one JSON line hangar-load prints and hangar-bench's server section reads back.
        .target(name: "LoadReport", swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        // The system SQLite for the raw baseline of the store rows (the root package's CSQLite is not a product).
        .systemLibrary(
            name: "BenchSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libplist (C, 2.2 API), a peer codec measured in process (`plist_from_bin`, `plist_to_xml`, ...).
        .systemLibrary(
            name: "CLibPlist",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        .executableTarget(
            name: "hangar-bench",
            dependencies: [
                "CAllocationCounter",
                "BenchSQLite",
                "LoadReport",
                "CLibPlist",
                .product(name: "PropertyList", package: "Hangar"),
                .product(name: "Hangar", package: "Hangar"),
                .product(name: "HangarSQLite", package: "Hangar"),
                .product(name: "HangarPostgres", package: "Hangar"),
                .product(name: "HangarEncryption", package: "Hangar"),
                .product(name: "HangarSync", package: "Hangar"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny")
            ]
        ),
        // The `server` section's baseline: the Pilots routes as an app team writes them by hand today (Codable,
        // PropertyListEncoder/Decoder, a plain table in SQLite or PostgreSQL). See README.md, "The server rows".
        .executableTarget(
            name: "pilots-baseline-server",
            dependencies: [
                "BenchSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny")
            ]
        ),
        // The `server` section's load generator: keep-alive HTTP/1.1 connections on one event loop (SwiftNIO).
        .executableTarget(
            name: "hangar-load",
            dependencies: [
                "LoadReport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny")
            ]
        ),
    ]
)
