// swift-tools-version:6.0
// No package dependencies, by design: the toolchain's own modules and the C libraries every
// Linux install already has are all `appdna` uses. The core and the CLI import neither
// Foundation nor FoundationNetworking, so `appdna bucket` starts as fast as a hello-world
// (see bench/). Tests may use Foundation freely.
import PackageDescription

let package = Package(
    name: "appdna",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "appdna", targets: ["appdna"]),
        .library(name: "AppDNACore", targets: ["AppDNACore"]),
        // An app target lists it to validate its appdna-config.json and get typed accessors at
        // build time (docs/codegen.md).
        .plugin(name: "AppDNABundlePlugin", targets: ["AppDNABundlePlugin"]),
    ],
    targets: [
        // The domain (bundles, experiments, queues, webhooks, hashing, JSON, codegen, warehouse
        // SQL) as values and typed errors, over the one platform layer, Core/Platform: every call
        // into the C library (files, directories, descriptors, clocks, sleeping, SIGINT/SIGTERM,
        // terminals, sockets and poll, threads, locks, disk sync, memory routines, maths, the
        // dlopen'ed system libraries), each spelled once per C library (Glibc, Musl, Darwin).
        // Only those files import the C library and nothing re-exports it, so the modules above
        // cannot call it (PlatformBoundaryTests). It never prints and never exits; it reads the
        // environment only for the documented library overrides (APPDNA_LIBSQLITE3…) and TMPDIR.
        .target(name: "AppDNACore", dependencies: ["CSHA256"]),
        // SHA-256 block function with the x86 SHA extensions, chosen at run time; the portable
        // Swift code in AppDNACore is the fallback and the reference (see Sources/CSHA256).
        .target(name: "CSHA256"),
        // The one HTTP layer: requests with deadlines, retries, Retry-After, same-host
        // redirects, over the system libcurl loaded at first use (never linked: commands that
        // do not use the network do not load it). No Foundation here either.
        .target(name: "AppDNANet", dependencies: ["AppDNACore", "CCurlLoader", "CZlibLoader"]),
        // dlopen/dlsym of libcurl with the few declarations it needs; no curl headers required.
        // (With CZlibLoader, the only C code calling the C library: dlopen, dlsym, pthread_once.)
        .target(name: "CCurlLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Raw DEFLATE for event ingest through the system zlib, loaded with dlopen at first use
        // like libcurl (only zlib.h's types are needed at build time; nothing is linked).
        .target(name: "CZlibLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])),
                                                      .linkedLibrary("pthread", .when(platforms: [.linux]))]),
        // The replay engine: plans and sends queued events through the API client, journal,
        // dead letters, 413 splits; values in, values out, never prints (see Sources/README.md).
        .target(name: "AppDNAReplay", dependencies: ["AppDNACore", "AppDNANet"]),
        // The three local servers: `webhook listen`'s listener, `api serve`'s API and the
        // inspector beside either; values in (a plan's settings, requests), values out (answers,
        // each request's outcome), never printing: the CLI renders what they report. The
        // inspector page's HTML, JavaScript and CSS are embedded as Swift strings
        // (Inspector/InspectorPage.swift, generated from them): not resources.
        .target(name: "AppDNAServers", dependencies: ["AppDNACore", "AppDNANet"], exclude: ["Inspector/Page"]),
        // The command table, lexer, help/man/completion generators and the commands.
        .target(name: "AppDNACLI", dependencies: ["AppDNACore", "AppDNANet", "AppDNAReplay", "AppDNAServers"]),
        // A few lines: hands argv and the standard streams to AppDNACLI.
        .executableTarget(name: "appdna", dependencies: ["AppDNACLI"]),
        // The build-tool plugin: runs `appdna bundle codegen` on a target's appdna-config.json.
        .plugin(name: "AppDNABundlePlugin", capability: .buildTool(), dependencies: ["appdna"]),

        .testTarget(name: "AppDNACoreTests", dependencies: ["AppDNACore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "AppDNACLITests", dependencies: ["AppDNACLI", "AppDNAServers", "TestSupport", "LoopbackHTTPServer"], exclude: ["Golden"]),
        .testTarget(name: "AppDNANetTests", dependencies: ["AppDNANet", "LoopbackHTTPServer", "TestSupport"]),
        // The replay engine in-process: a scripted transport and a virtual clock, no sockets, no sleeping.
        .testTarget(name: "AppDNAReplayTests", dependencies: ["AppDNAReplay", "AppDNANet", "AppDNACore", "TestSupport"]),
        // Runs the built `appdna` binary as a user would (the route fuzzer reads the servers' route tables from AppDNAServers).
        .testTarget(name: "EndToEndTests", dependencies: ["LoopbackHTTPServer", "TestSupport", "AppDNACore", "AppDNANet", "AppDNAServers", "AppDNACLI"]),
        // A scriptable HTTP/1.1 server on 127.0.0.1 for the tests (statuses, delays, trickle,
        // cut-off bodies, never answering). Test support only: no product uses it.
        .target(name: "LoopbackHTTPServer", dependencies: ["CZlibLoader"], path: "Tests/LoopbackHTTPServer"),
        // What the test targets share: temporary directories, the process runner, queue events,
        // the virtual clock, and `missing`/`requireTool` (a skip locally, a failure under CI).
        .target(name: "TestSupport", dependencies: ["AppDNACore"], path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
    ]
)
