// swift-tools-version:6.0
import PackageDescription

// Release builds skip the runtime exclusivity checks in the per-packet code (they cost ~5 %
// of decoding, issue 5); debug builds and so every test keep them.
let fast: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "btlog",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "btlog", targets: ["btlog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        .systemLibrary(name: "CSystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CNcurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // Capture files in and out: Frame, readers, writers, containers (gz, tar, zip, btsnooz).
        .target(name: "BTCapture", dependencies: ["CPcap", "CSystemZlib"], swiftSettings: fast),
        // Byte cursor, Packet model, field registry, protocol decoders and Session state.
        .target(name: "BTDecode", dependencies: ["BTCapture"], exclude: ["AssignedNumbers/LICENSE-assigned-numbers"],
                swiftSettings: fast),
        // Protocols users describe in files (YAML, `btlog-protocol: 1`): read, checked and
        // compiled into BTDecode's described protocols. Nothing in a description executes.
        .target(name: "BTDescribe", dependencies: ["BTCapture", "BTDecode", "CPCRE2", .product(name: "Yams", package: "Yams")], swiftSettings: fast),
        // The packet chain: the pipeline every command wires and its stages (selection, filter,
        // search, annotations, redaction), over decoded Packets.
        .target(name: "BTQuery", dependencies: ["BTCapture", "BTDecode", "CPCRE2", .product(name: "DequeModule", package: "swift-collections")],
                swiftSettings: fast),
        // What a whole capture says, read from its Packets: statistics, diagnosis, and the
        // comparison of two captures (`btlog diff`). A stage of the pipeline and reports' models.
        .target(name: "BTAnalysis", dependencies: ["BTCapture", "BTDecode", "BTQuery"], swiftSettings: fast),
        // Sinks that print Packets (table, tree, fields) and whole-capture reports (GATT,
        // controllers, what stayed open); colour, time formats, the buffered writer.
        .target(name: "BTRender", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTAnalysis"], swiftSettings: fast),
        // Export as a library: a typed request (every format, redaction, audio, captures) run
        // with its progress and errors as values; `btlog export` and the browser both use it.
        .target(name: "BTExport", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTRender"], swiftSettings: fast),
        // `btlog browse`: the capture held for reading in any order (frames and saved Sessions),
        // the model of what the user sees (list, tree, filter, search) and its drawing into a
        // grid of cells, all without a terminal; then the thin ncurses back end.
        .target(name: "BTBrowse", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTAnalysis", "BTRender", "BTExport", "CNcurses"], swiftSettings: fast),
        // Builds realistic captures from packet descriptions (tests and the fixture generator);
        // its zip writer is ZIPFoundation, so btlog's own zip reader is checked against another
        // implementation.
        .target(name: "BTFixtures", dependencies: ["BTCapture", "BTDecode", "CSystemZlib", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .executableTarget(name: "btlog", dependencies: [
            "BTCapture", "BTDecode", "BTDescribe", "BTQuery", "BTAnalysis", "BTRender", "BTExport", "BTBrowse",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: fast),
        .executableTarget(name: "btlog-fixtures", dependencies: ["BTFixtures", "BTCapture", "BTFuzz"]),
        // What untrusted bytes reach, one entry point per fuzz target (Scripts/fuzz.sh).
        .target(name: "BTFuzz", dependencies: ["BTCapture", "BTDecode", "BTDescribe", "BTQuery", "BTAnalysis", "BTRender", "BTBrowse", "BTFixtures"]),
        .executableTarget(name: "btlog-fuzz", dependencies: ["BTFuzz"]),
        .testTarget(name: "BTCaptureTests", dependencies: ["BTCapture", "BTFixtures"]),
        .testTarget(name: "BTDecodeTests", dependencies: ["BTCapture", "BTDecode", "BTFixtures"], exclude: ["Captures"]),
        .testTarget(name: "BTDescribeTests", dependencies: ["BTCapture", "BTDecode", "BTDescribe", "BTQuery", "BTFuzz", "BTFixtures"]),
        .testTarget(name: "BTQueryTests", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTFixtures"]),
        .testTarget(name: "BTAnalysisTests", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTAnalysis", "BTFixtures"]),
        .testTarget(name: "BTRenderTests", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTAnalysis", "BTRender", "BTFixtures"]),
        .testTarget(name: "BTBrowseTests", dependencies: ["BTBrowse", "BTCapture", "BTDecode", "BTQuery", "BTAnalysis", "BTRender", "BTExport", "BTFixtures"]),
        .testTarget(name: "BTLogTests", dependencies: ["BTCapture", "BTDecode", "BTQuery", "BTAnalysis", "BTFixtures"]),
        .testTarget(name: "BTFuzzTests", dependencies: ["BTFuzz", "BTCapture", "BTDecode"]),
    ],
    swiftLanguageModes: [.v5]
)
