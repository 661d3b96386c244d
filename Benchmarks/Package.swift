// swift-tools-version: 6.1
// The benchmark is its own package (STYLE #24), so the main package's `swift build` / `swift test` never builds it.
// Run: `cd Benchmarks && swift run -c release hangar-bench [--quick] [--filter NAME]`.
import PackageDescription

let package = Package(
    name: "HangarBenchmarks",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "hangar-bench", targets: ["hangar-bench"]),
    ],
    dependencies: [
        .package(name: "Hangar", path: ".."),
    ],
    targets: [
        // Counts malloc-family calls (glibc only), so each row can report allocations per operation.
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "hangar-bench",
            dependencies: [
                "CAllocationCounter",
                .product(name: "PropertyList", package: "Hangar"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
            ]
        ),
    ]
)
