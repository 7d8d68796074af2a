// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "btlog",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "btlog", targets: ["btlog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "CSystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Capture files in and out: Frame, readers, writers, containers (gz, tar, zip, btsnooz).
        .target(name: "BTCapture", dependencies: [
            "CPcap", "CSystemZlib",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),
        // Byte cursor, Packet model, field registry, protocol decoders and Session state.
        .target(name: "BTDecode", dependencies: ["BTCapture"], exclude: ["AssignedNumbers/LICENSE-assigned-numbers"]),
        // Stages that read Packets: selection, statistics (filters and search arrive here later).
        .target(name: "BTQuery", dependencies: ["BTDecode"]),
        // Sinks that print Packets: table, tree, hex dump, colour, the buffered writer.
        .target(name: "BTRender", dependencies: ["BTDecode", "BTQuery"]),
        // Builds realistic captures from packet descriptions (tests and the fixture generator).
        .target(name: "BTFixtures", dependencies: ["BTCapture", "CSystemZlib", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .executableTarget(name: "btlog", dependencies: [
            "BTCapture", "BTDecode", "BTQuery", "BTRender",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "btlog-fixtures", dependencies: ["BTFixtures", "BTCapture"]),
        .testTarget(name: "BTCaptureTests", dependencies: ["BTCapture", "BTFixtures"]),
        .testTarget(name: "BTDecodeTests", dependencies: ["BTDecode", "BTFixtures"]),
        .testTarget(name: "BTQueryTests", dependencies: ["BTQuery", "BTFixtures"]),
        .testTarget(name: "BTRenderTests", dependencies: ["BTRender", "BTFixtures"]),
        .testTarget(name: "BTLogTests", dependencies: ["BTCapture", "BTFixtures"]),
    ],
    swiftLanguageModes: [.v5]
)
