/// The flags of every command that calls the AppDNA API (`bundle fetch`, `bundle diff @remote`,
/// `queue replay`), declared once: the key file, the time bound and the retries. `queue replay`
/// bounds and retries each batch rather than the whole command, so it has its own wording and
/// default of the same flags (same names, value names and ranges).
enum APIFlags {
    static let keyFile = Flag.optional(
        "key-file", value: "PATH", "Read the SDK key from a file instead of APPDNA_SDK_KEY",
        details: "The file holds only the key (it starts with adn_live_ or adn_test_); one trailing newline is removed. The key is never a flag value: it would end up in shell history and in ps.",
        completion: .file, .path)

    static let timeout = timeout("Bound on the whole command, retries included", default: "60")
    static let retries = retries("Retries in the whole command, shared by its requests (a first attempt is never refused), for network errors, 5xx, 408 and 429 (1 s, 2 s, 4 s… jittered, at most 30 s, or Retry-After up to 120 s)")

    static let batchTimeout = timeout("Bound on each batch, retries included", default: "600")
    static let batchRetries = retries("Retries of a batch for network errors, 5xx, 408 and 429 (1 s, 2 s, 4 s jittered, at most 30 s, or Retry-After up to 120 s)")

    /// `--key-file`, `--timeout`, `--retries` of `bundle fetch` and `bundle diff`, in help order.
    static let wholeCommand: [FlagSpec] = [keyFile.spec, timeout.spec, retries.spec]

    /// The `wholeCommand` flags given, as words to repeat in a "run …" hint (the key file, the
    /// time bound and the retries the user chose hold for the command the hint names too).
    static func givenWords(_ arguments: ParsedArguments) -> [String] {
        wholeCommand.flatMap { flag -> [String] in
            guard let value = arguments.texts(flag).last else { return [] }
            return ["--" + flag.long, value]
        }
    }

    /// `--timeout DURATION`, the one spelling of a time bound, for each thing it bounds: the
    /// whole command (`timeout`), each batch of `queue replay` (`batchTimeout`), each request of
    /// `api override` (`APIOverrideFlags.timeout`). Three declarations, as they bound three
    /// things with three defaults; no command declares two (`CommandTableInvariantTests`).
    static func timeout(_ summary: String, default defaultText: String, upTo limit: Double = 86_400) -> Flag<Double> {
        .defaulted("timeout", value: "DURATION", summary, default: defaultText, .duration(0.001...limit))
    }

    private static func retries(_ summary: String) -> Flag<Int> {
        .defaulted("retries", value: "N", summary, default: "3", .integer(0...100))
    }
}
