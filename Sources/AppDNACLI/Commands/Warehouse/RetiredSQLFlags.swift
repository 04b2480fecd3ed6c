import AppDNACore

/// The spellings that wrote warehouse SQL before `appdna warehouse` (`bucket --sql DIALECT`,
/// `queue inspect --sql DIALECT --exposures TABLE [--srm|--duplicates]`) and their column
/// flags: still parsed, hidden from help, and answered with a usage error whose hint is the
/// same request as a `warehouse` command, for one release.
enum RetiredSQLFlags {
    /// A retired flag, and whether the new command carries it over as given.
    private struct Retired {
        let spec: FlagSpec
        let carried: Bool
    }

    private static func text(_ long: String, repeated: Bool = false, carried: Bool = true) -> Retired {
        let summary = "Retired: see 'appdna warehouse'"
        let spec = repeated ? Flag.repeated(long, value: "VALUE", summary, hidden: true, .text).spec
            : Flag.optional(long, value: "VALUE", summary, hidden: true, .text).spec
        return Retired(spec: spec, carried: carried)
    }

    private static func flag(_ long: String) -> Retired {
        Retired(spec: Flag.switch(long, "Retired: see 'appdna warehouse'", hidden: true).spec, carried: false)
    }

    private static let sql = text("sql", carried: false)
    private static let context = ["user-column", "platform-column", "country-column", "app-version-column", "installed-at-column"].map { text($0) }
        + [text("trait-column", repeated: true)]
    private static let bucketFlags = [sql, text("table"), text("experiment", repeated: true)] + context
    private static let (srm, duplicates) = (flag("srm"), flag("duplicates"))
    private static let queueFlags = [sql, text("exposures"), text("event-id-column"), text("experiment-column"), text("variant-column"),
                                     text("sdk-version-column"), text("bundle-version-column"), text("session-column"),
                                     text("experiment", repeated: true), srm, duplicates] + context

    /// The hidden flags `bucket` and `queue inspect` keep declaring.
    static let bucketSpecs = bucketFlags.map(\.spec)
    static let queueInspectSpecs = queueFlags.map(\.spec)

    /// Whether `arguments` use a retired spelling of `bucket` (else of `queue inspect`).
    static func given(_ arguments: ParsedArguments, bucket: Bool) -> Bool {
        (bucket ? bucketFlags : queueFlags).contains { arguments.given($0.spec) }
    }

    /// A usage error naming the `warehouse` command that does what `arguments` asked, when
    /// they use a retired spelling; `bundle` is the command's `--bundle` value.
    static func refuse(_ arguments: ParsedArguments, bucket: Bool, bundle: String?, scheme: String?) throws {
        guard given(arguments, bucket: bucket) else { return }
        let command: WarehouseQuery = bucket ? .assignment : arguments.given(srm.spec) ? .srm : arguments.given(duplicates.spec) ? .duplicates : .audit
        let takes = Set(command.flags.map(\.long))
        var words = ["appdna", "warehouse", command.rawValue, bundle ?? "BUNDLE", "--dialect", arguments.texts(sql.spec).last ?? "ENGINE"]
        if let scheme { words += ["--scheme", scheme] }
        for flag in (bucket ? bucketFlags : queueFlags) where flag.carried && takes.contains(flag.spec.long) {
            for value in arguments.texts(flag.spec) { words += ["--" + flag.spec.long, value] }
        }
        let old = bucket ? "bucket --sql" : "queue inspect --sql"
        throw Failure(.usage, "'\(old)' moved to its own command, 'appdna warehouse \(command.rawValue)' (see appdna warehouse --help)",
                      hint: "run " + ShellWord.line(words))
    }
}
