/// THE table: every command and flag of `appdna`, in the order help and the man page show them.
/// Parsing, help, the man page and the shell completions are generated from it.
extension CommandTable {
    public static let appdna = CommandTable(
        programName: "appdna",
        version: "0.1.0",
        summary: "the command-line tool for the AppDNA platform",
        globalFlags: [
            FlagSpec("color", value: "WHEN", "When to colour output", completion: .choices(["auto", "always", "never"]), default: "auto"),
            FlagSpec("quiet", short: "q", "Print only errors and warnings on stderr"),
            FlagSpec("verbose", short: "v", "Print more detail on stderr"),
            FlagSpec("no-input", "Never ask for confirmation; fail instead"),
            FlagSpec("help", short: "h", "Show help"),
            FlagSpec("version", "Show the version"),
        ],
        groups: [
            GroupSpec("webhook", summary: "Verify and produce webhook signatures (X-AppDNA-Signature)"),
            GroupSpec("queue", summary: "Inspect event queues taken from devices"),
        ],
        commands: [
            CommandSpec(
                ["bucket"],
                summary: "Reproduce and explain experiment assignment",
                discussion: """
                Computes the bucket (and variant) a user gets in an experiment exactly as devices do: \
                MurmurHash3_x86_32 of the UTF-8 bytes of "EXPERIMENT.SALT.USER", seed 0, modulo 10000; a \
                blank salt is replaced by the experiment id. --scheme docs uses the documented formula \
                instead (USER+EXPERIMENT+SALT, modulo 100).
                With USER '-', reads one user id per line from stdin and prints one result per line \
                in bounded memory.
                """,
                operands: BucketCommand.operands,
                flags: [
                    FlagSpec("scheme", value: "SCHEME", "sdk (what devices compute) or docs (the documented formula)",
                             completion: .choices(["sdk", "docs"]), default: "sdk"),
                    FlagSpec("variants", value: "LIST", "Variants and weights, e.g. control=0.5,variant_b=0.5"),
                    FlagSpec("bundle", value: "FILE", "Take the experiment (salt, variants, status, targeting) from a config bundle",
                             completion: .file),
                    FlagSpec("platform", value: "NAME", "User context for --bundle: the device platform (ios, android)"),
                    FlagSpec("country", value: "CODE", "User context for --bundle: ISO 3166 alpha-2 country"),
                    FlagSpec("app-version", value: "VERSION", "User context for --bundle: the app version"),
                    FlagSpec("trait", value: "KEY=VALUE", "User context for --bundle: a user trait", repeatable: true),
                    FlagSpec("installed-at", value: "TIME", "User context for --bundle: install time (ms since 1970, or ISO 8601)"),
                    FlagSpec("explain", "Show the bytes hashed, the hash, the variant ranges, the other scheme and portability warnings"),
                    FlagSpec("format", value: "FORMAT", "Output format for a batch from stdin",
                             completion: .choices(["tsv", "csv", "ndjson"]), default: "tsv"),
                    FlagSpec("summary", "For a batch: per-variant counts against the expected split, with a sample-ratio-mismatch test"),
                    FlagSpec("find", value: "VARIANT", "Print user ids that land in VARIANT (for QA)"),
                    FlagSpec("count", value: "N", "With --find: how many ids", default: "10"),
                    FlagSpec("prefix", value: "TEXT", "With --find: the ids' prefix", default: "qa-user-"),
                    FlagSpec("json", "Print one JSON document"),
                    FlagSpec("self-test", "Check the built-in MurmurHash3 and bucketing vectors"),
                ],
                examples: [
                    ExampleSpec("appdna bucket user_12345 exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5",
                                "Which variant does user_12345 get?"),
                    ExampleSpec("appdna bucket user_12345 onboarding-v2 --bundle appdna-config.json --platform ios --explain",
                                "Evaluate status, platform, targeting and traffic allocation from the bundle, and show why."),
                    ExampleSpec("appdna bucket - exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5 --summary < ids.txt",
                                "Count a list of users per variant and test for sample-ratio mismatch."),
                    ExampleSpec("appdna bucket --find variant_b --count 3 exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5",
                                "Three QA user ids that land in variant_b."),
                ],
                alternativeUsages: ["[OPTIONS] - EXPERIMENT [SALT] < ids.txt", "--find VARIANT [OPTIONS] EXPERIMENT [SALT]", "--self-test"],
                operandsGiven: BucketCommand.operandsGiven,
                run: BucketCommand.run),
            CommandSpec(
                ["webhook", "verify"],
                summary: "Check a webhook delivery's signature, and say why it does not match",
                discussion: WebhookCommand.verifyDiscussion,
                operands: [WebhookCommand.bodyOperand],
                flags: WebhookCommand.verifyFlags,
                examples: WebhookCommand.examples,
                alternativeUsages: ["--request FILE [OPTIONS]"],
                run: WebhookCommand.verify),
            CommandSpec(
                ["webhook", "sign"],
                summary: "Print the X-AppDNA-Signature value for a body",
                discussion: WebhookCommand.signDiscussion,
                operands: [WebhookCommand.bodyOperand],
                flags: WebhookCommand.signFlags,
                examples: [ExampleSpec("appdna webhook sign body.json --secret-file secret.txt",
                                       "Sign a test delivery (prints sha256=<hex>).")],
                run: WebhookCommand.sign),
            CommandSpec(
                ["queue", "inspect"],
                summary: "Summarise device event queues and list the events the server would reject",
                discussion: QueueInspectCommand.discussion,
                operands: QueueInspectCommand.operands,
                flags: QueueInspectCommand.flags,
                examples: QueueInspectCommand.examples,
                alternativeUsages: ["--events [--name NAME] [--user ID] [--since TIME] [--until TIME] PATH..."],
                run: QueueInspectCommand.run),
            CommandSpec(
                ["completions"],
                summary: "Print a shell completion script",
                discussion: "Prints the completion script for SHELL on stdout. The same scripts ship in completions/.",
                operands: [OperandSpec("SHELL", "bash, zsh or fish", completion: .choices(["bash", "zsh", "fish"]))],
                examples: [
                    ExampleSpec("appdna completions bash > /etc/bash_completion.d/appdna", "Install bash completions."),
                    ExampleSpec("appdna completions fish > ~/.config/fish/completions/appdna.fish", "Install fish completions."),
                ],
                run: GeneratedDocsCommand.completions),
            CommandSpec(
                ["manpage"],
                summary: "Print the man page (mdoc)",
                discussion: "Prints appdna(1) in mdoc format on stdout. The same page ships as man/appdna.1.",
                examples: [ExampleSpec("appdna manpage | man -l -", "Read the manual.")],
                run: GeneratedDocsCommand.manpage),
        ],
        environment: [
            ("APPDNA_WEBHOOK_SECRET", "The webhook signing secret for webhook verify and webhook sign (unless --secret-file or --secret-stdin is given)"),
            ("NO_COLOR", "When set and not empty, no colour (as does TERM=dumb)"),
        ])
}
