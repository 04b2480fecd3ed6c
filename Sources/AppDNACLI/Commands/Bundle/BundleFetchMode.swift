import AppDNACore

/// What one `bundle fetch` run does, decided once (issue 35.3): fetch, fetch keeping the file
/// when the API is unreachable, or only compare the file with the live version.
enum BundleFetchMode: Equatable {
    case fetch(output: String)
    case fetchKeepingOnFailure(output: String)
    case check(output: String)

    static func decide(_ arguments: ParsedArguments) throws(Failure) -> BundleFetchMode {
        let output = arguments[BundleFetchFlags.output]
        if output.isEmpty { throw Failure(.usage, "--output needs a path (or '-' for stdout)") }
        let mode: BundleFetchMode = arguments[BundleFetchFlags.check] ? .check(output: output)
            : arguments[BundleFetchFlags.keepOnFailure] ? .fetchKeepingOnFailure(output: output) : .fetch(output: output)
        try mode.flags.check(arguments, declared: BundleFetchFlags.all)
        if output == "-" {
            switch mode {
            case .check: throw ModeFlags.conflict("-o -", "--check", instead: "it compares with a file: give its path with -o PATH")
            case .fetchKeepingOnFailure:
                throw ModeFlags.conflict("-o -", "--keep-on-failure", instead: "it keeps the file at -o, and standard output holds none: give -o a path")
            case .fetch:
                if arguments[BundleFetchFlags.json] {
                    throw ModeFlags.conflict("--json", "-o -", instead: "--json prints a report on stdout, where -o - writes the bundle: give -o a path")
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
