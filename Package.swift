// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The modules on the per-packet path (forwarding, transport, the server's media sessions) leave
/// out the run-time exclusivity checks of class properties in release builds: every forwarded
/// packet mutates its consumer's mungers inside the closure that writes the copy, and each such
/// access cost a `swift_beginAccess` with an access-set insert, the largest share of the
/// server's own code per packet in `stage-bench media` (docs/BENCHMARKS.md). The compile-time
/// checks stay, and debug builds (the tests) keep the run-time ones.
let packetPath: [SwiftSetting] = strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Proscenium",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stage-server", targets: ["stage-server"]),
        .executable(name: "stage", targets: ["stage"]),
        .executable(name: "stage-bench", targets: ["stage-bench"]),
        .executable(name: "stage-compositor", targets: ["stage-compositor"]),
        .library(name: "StageKit", targets: ["StageKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", exact: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
    ],
    targets: [
        // Media wire formats: RTP, RTCP, STUN, SDP, VP8 payload descriptor, RFC 7983 demux.
        // Value types and parsers only: no I/O, no C, no crypto (STUN integrity is computed by callers).
        .target(name: "StageWire", swiftSettings: strict),
        // Send-side congestion control on transport-cc: transport-wide numbering, GCC's delay-based
        // detector, recent rates. Pure value logic, shared by the SFU's downlink estimate and the
        // SDK publisher's uplink. No I/O.
        .target(name: "StageCongestion", dependencies: ["StageWire"], swiftSettings: strict),
        // Forwarding: producers, consumers, header rewriting, layer selection. No I/O.
        .target(name: "StageSFU", dependencies: ["StageWire"], swiftSettings: packetPath),
        // C libraries from Debian, and the few wrappers Swift needs for their macros.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .target(name: "CStageShims", dependencies: ["COpenSSL"]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .target(name: "CMediaShims", dependencies: ["CVPX", "COpus"]),
        // The compositor's C libraries: FFmpeg's codecs and muxers (H.264 via libx264, AAC, fMP4)
        // and libyuv (scaling, blending). Only StageCompositor links them (see README, Licence).
        .systemLibrary(name: "CAV", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        // No pkgConfig for these two: their .pc files add -pthread/-D_REENTRANT, flags SwiftPM refuses.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CX11", pkgConfig: "x11", providers: [.apt(["libx11-dev"])]),
        // HLS: the part/segment model and the playlist writers (LL-HLS, classic, VOD, master),
        // shared by the compositor (produces parts) and the server (serves, blocks). Foundation only.
        .target(name: "StageHLS", swiftSettings: strict),
        // The composition layout, IVS's LayoutConfiguration typed: its defaults, validation, JSON
        // shape and the grid/PiP geometry. Pure Swift, no dependencies: the control plane, the
        // compositor supervisor, the compositor and `stage --view` share it.
        .target(name: "StageLayout", swiftSettings: strict),
        // An I420 canvas: tiles drawn per fill mode (libyuv, BSD), placeholders, name labels.
        // The compositor and `stage --view` draw with it; it links no libav*.
        .target(name: "StageCanvas", dependencies: ["StageLayout", "StageMedia", "CYUV"], swiftSettings: strict),
        // Server-side composition's encoding: audio mix, H.264/AAC encode and CMAF mux
        // (libavcodec/libavformat, GPL through x264: only the stage-compositor executable links it).
        .target(name: "StageCompositor", dependencies: ["StageMedia", "StageHLS", "CAV", "CYUV"], swiftSettings: strict),
        // Client media: VP8/Opus codecs, RTP packetizers, jitter buffer, frames, devices and files.
        .target(name: "StageMedia", dependencies: ["StageWire", "CVPX", "COpus", "CMediaShims"], swiftSettings: strict),
        // Sound devices of the host: microphones and speakers through PulseAudio (or PipeWire's Pulse server).
        .target(name: "StageDevices", dependencies: ["StageMedia", "CPulse", "CX11"], swiftSettings: strict),
        // Media transport: DTLS (OpenSSL, sans-IO), SRTP (libsrtp2), ICE-lite, the UDP port.
        .target(
            name: "StageTransport",
            dependencies: [
                "StageWire", "COpenSSL", "CSRTP", "CStageShims",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: packetPath),
        // Wire contract shared by server and SDK: signaling messages, token claims, IVS API shapes.
        .target(name: "StageProtocol", dependencies: ["StageLayout", "StageWire"], swiftSettings: strict),
        // AWS Signature Version 4: signing (CLI, SDK helpers) and verification (server).
        .target(
            name: "StageSigV4",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        .target(
            name: "StageServer",
            dependencies: [
                "StageProtocol", "StageSigV4", "StageTransport", "StageSFU", "StageCongestion", "StageWire", "StageHLS",
                "StageSubprocess", "StageLayout",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: packetPath),
        // Client-side TLS trust (system roots or a CA file) and readable verification errors,
        // shared by the SDK, the control-plane client and the CLI.
        .target(
            name: "StageTLS",
            dependencies: [.product(name: "NIOSSL", package: "swift-nio-ssl")],
            swiftSettings: strict),
        // Child processes: whether one has exited, without trusting Foundation's `isRunning` alone.
        .target(name: "StageSubprocess", swiftSettings: strict),
        // Client of the IVS control-plane API (SigV4-signed), for the CLI, the benchmark and tests;
        // its HTTP/1.1 transport runs on SwiftNIO so https:// can trust a CA file.
        .target(
            name: "StageControl",
            dependencies: [
                "StageProtocol", "StageSigV4", "StageTLS", "StageSubprocess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        .target(
            name: "StageKit",
            dependencies: [
                "StageProtocol", "StageTransport", "StageMedia", "StageDevices", "StageWire", "StageTLS", "StageCongestion",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "stage-server",
            dependencies: [
                "StageServer", "StageControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "stage",
            dependencies: [
                "StageKit", "StageProtocol", "StageControl", "StageMedia", "StageDevices", "StageLayout", "StageCanvas", "CSDL2",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "stage-bench",
            dependencies: [
                "StageKit", "StageProtocol", "StageControl", "StageTransport", "StageMedia", "StageSubprocess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "stage-compositor",
            dependencies: [
                "StageCompositor", "StageCanvas", "StageLayout", "StageKit", "StageMedia", "StageHLS", "StageProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Examples/: the IVS guide's strategies as small programs (built with the package).
        .executableTarget(name: "example-video-chat", dependencies: ["StageKit"], path: "Examples/VideoChat", exclude: ["README.md"]),
        .executableTarget(name: "example-moderated-stage", dependencies: ["StageKit"], path: "Examples/ModeratedStage", exclude: ["README.md"]),
        .executableTarget(name: "example-publish-on-button", dependencies: ["StageKit"], path: "Examples/PublishOnButton", exclude: ["README.md"]),
        .executableTarget(name: "example-background-audio", dependencies: ["StageKit"], path: "Examples/BackgroundAudio", exclude: ["README.md"]),
        .testTarget(name: "StageDevicesTests", dependencies: ["StageDevices"], swiftSettings: strict),
        .testTarget(
            name: "StageTransportTests",
            dependencies: ["StageTransport", "StageWire", .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(name: "StageSFUTests", dependencies: ["StageSFU", "StageWire"]),
        .testTarget(name: "StageCongestionTests", dependencies: ["StageCongestion", "StageWire"]),
        .testTarget(name: "StageMediaTests", dependencies: ["StageMedia", "StageDevices", "StageWire"]),
        .testTarget(
            name: "StageWireTests",
            dependencies: ["StageWire", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "StageProtocolTests", dependencies: ["StageProtocol", "StageWire"], resources: [.copy("Fixtures")]),
        .testTarget(name: "StageServerTests", dependencies: ["StageServer", "StageSigV4", "StageProtocol", "StageHLS", "StageLayout",
                                                             .product(name: "NIOPosix", package: "swift-nio")]),
        .testTarget(name: "StageKitTests", dependencies: ["StageKit", "StageProtocol", "StageMedia", "StageWire", "StageTransport", "StageCongestion"]),
        .testTarget(name: "StageHLSTests", dependencies: ["StageHLS"]),
        .testTarget(name: "StageSubprocessTests", dependencies: ["StageSubprocess"], swiftSettings: strict),
        .testTarget(name: "StageCompositorTests", dependencies: ["StageCompositor", "StageMedia", "StageDevices"]),
        .testTarget(name: "StageLayoutTests", dependencies: ["StageLayout"]),
        .testTarget(name: "StageCanvasTests", dependencies: ["StageCanvas", "StageLayout", "StageMedia"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "StageKit", "StageProtocol", "StageControl", "StageServer", "StageTransport", "StageMedia",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
    ]
)
