import AppDNACore

/// What one `bundle fetch` run does, decided once (issue 35.3): fetch, fetch keeping the file
/// when the API is unreachable, or only compare the file with the live version. A fetch's
/// case holds how it downloads; what every mode shares is in `BundleFetchPlan`.
enum BundleFetchMode: Equatable {
    case fetch(output: String, Download)
    case fetchKeepingOnFailure(output: String, Download)
    case check(output: String)

    /// How a fetch downloads and what it writes (`--check` reads none of it).
    struct Download: Equatable {
        /// --force: download even when the file's bundle_version is the server's.
        let force: Bool
        /// --raw: the response bytes rather than the SDK file shape.
        let raw: Bool
        /// Not --no-validate.
        let validate: Bool
        let minVersion: Int?
        /// --max-size, in bytes.
        let maxSize: Int

        init(_ arguments: ParsedArguments) {
            force = arguments[BundleFetchFlags.force]
            raw = arguments[BundleFetchFlags.raw]
            validate = !arguments[BundleFetchFlags.noValidate]
            minVersion = arguments[BundleFetchFlags.minVersion]
            maxSize = arguments[BundleFetchFlags.maxSize]
        }
    }

    /// The modes without their values, for the tests that walk every mode (`ModeConflictTests`).
    enum Kind: CaseIterable { case fetch, fetchKeepingOnFailure, check }

    var kind: Kind {
        switch self {
        case .fetch: return .fetch
        case .fetchKeepingOnFailure: return .fetchKeepingOnFailure
        case .check: return .check
        }
    }

    static func decide(_ arguments: ParsedArguments) throws(Failure) -> BundleFetchMode {
        let output = arguments[BundleFetchFlags.output]
        if output.isEmpty { throw Failure(.usage, "--output needs a path (or '-' for stdout)") }
        let mode: BundleFetchMode = arguments[BundleFetchFlags.check] ? .check(output: output)
            : arguments[BundleFetchFlags.keepOnFailure] ? .fetchKeepingOnFailure(output: output, Download(arguments))
            : .fetch(output: output, Download(arguments))
        try mode.flags.check(arguments, declared: BundleFetchFlags.all)
        try OutputPaths.refuseSameFile([("-o", output), ("--key-file", arguments[APIFlags.keyFile])])
        if output == "-" {
            switch mode {
            case .check: throw ModeFlags.conflict("-o -", "--check", instead: "it compares with a file: give its path with -o PATH")
            case .fetchKeepingOnFailure:
                throw ModeFlags.conflict("-o -", "--keep-on-failure", instead: "it keeps the file at -o, and standard output holds none: give -o a path")
            case .fetch:
                if arguments[BundleFetchFlags.json] {
                    throw ModeFlags.conflict("--json", "-o -", instead: "--json prints a report on stdout, where -o - writes the bundle: give -o a path")
                }
                if arguments[BundleFetchFlags.force] {
                    throw ModeFlags.conflict("--force", "-o -", instead: "standard output holds no bundle_version to compare with, so every fetch downloads")
                }
            }
        }
        return mode
    }

    var flags: ModeFlags {
        let fetching = [BundleFetchFlags.output.spec] + APIFlags.wholeCommand
            + [BundleFetchFlags.force.spec, BundleFetchFlags.raw.spec, BundleFetchFlags.noValidate.spec, BundleFetchFlags.requireLive.spec,
               BundleFetchFlags.minVersion.spec, BundleFetchFlags.maxSize.spec, BundleFetchFlags.json.spec]
        switch self {
        case .fetch: return ModeFlags("a fetch", reads: fetching)
        case .fetchKeepingOnFailure: return ModeFlags("--keep-on-failure", reads: fetching + [BundleFetchFlags.keepOnFailure.spec])
        case .check:
            let nothingDownloaded = "--check downloads and writes nothing"
            return ModeFlags("--check", reads: [BundleFetchFlags.output.spec] + APIFlags.wholeCommand
                                 + [BundleFetchFlags.requireLive.spec, BundleFetchFlags.check.spec, BundleFetchFlags.json.spec],
                             instead: [BundleFetchFlags.force.spec, BundleFetchFlags.raw.spec, BundleFetchFlags.noValidate.spec,
                                       BundleFetchFlags.keepOnFailure.spec, BundleFetchFlags.maxSize.spec].map { ($0, nothingDownloaded) }
                                 + [(BundleFetchFlags.minVersion.spec, "it compares with the live version exactly")])
        }
    }
}
