import AppDNACore

/// THE table: every command and flag of `appdna`, in the order help and the man page show them.
/// Parsing, help, the man page and the shell completions are generated from it.
extension CommandTable {
    public static let appdna = CommandTable(
        programName: "appdna",
        version: "0.1.0",
        summary: "the command-line tool for the AppDNA platform",
        globalFlags: GlobalFlags.all,
        groups: [
            GroupSpec("bundle", summary: "Fetch, validate and compare config bundles"),
            GroupSpec("webhook", summary: "Verify, sign, receive and send webhook deliveries (X-AppDNA-Signature)"),
            GroupSpec("queue", summary: "Inspect and replay event queues taken from devices"),
            GroupSpec("api", summary: "Run the AppDNA API on your machine, for CI steps and SDK integrations"),
            GroupSpec("warehouse", summary: "Write SQL that assigns, audits and checks experiments over warehouse tables"),
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
                in bounded memory. Blank lines are skipped (counted in a note); lines that are not UTF-8 \
                or are longer than 64 KiB are skipped and reported (exit 65). --summary warns when ids \
                repeat. --find refuses a search expected to take more than 20,000,000 tries (exit 64).
                --force-variant EXPERIMENT=VARIANT (repeatable, with --bundle and the device's context) finds \
                one user id for which a device computes every forced variant (status, platform, \
                targeting, traffic allocation and the bucket; on iOS with a blank salt also as iOS \
                <= 1.0.69 hashed it), checks it through the single-user path, and prints the \
                identify line for Swift, Kotlin, React Native and Flutter: devices assign from \
                the user id, so it forces the variants on any SDK version. A requirement no id can \
                meet (a variant of weight 0, an experiment not running, a platform not listed, a \
                targeting rule the context fails, a rule the flags do not settle) is named, each one \
                (exit 64); a combination expected to take more than 2,000,000 tries is refused; a \
                search stops after 20 times the expected tries (exit 1; docs/device-variants.md).
                With --bundle and no EXPERIMENT, shows every experiment of the bundle for USER, in \
                bundle order: status, bucket, variant and the eligibility verdict (with USER '-', one \
                row per user and experiment). A rule whose input was not given (--platform, \
                --country, --app-version, --installed-at, --trait) is not checked: the verdict is \
                "unknown", naming the flag that would settle it, and the variant is still shown. \
                A rule no user can pass (platforms that are not a list, new_users_only that is not \
                true/false, an unknown trait operator, 'in' without a list, gt/gte/lt/lte against a \
                non-number) fails even without input. Traffic allocation is applied only by iOS SDK \
                1.0.78 and later: Android and older iOS ignore it, even when it is not a number. \
                A bundle number equals a --trait that parses as the same number (5 and 5.0); \
                platform names compare without case. Ids are compared by their UTF-8 bytes: an id \
                in NFD is not the NFC one. The decisions: docs/assignment-rules.md.
                --vectors prints golden cases for SDK ports (both schemes) as JSON.
                For a whole table of users in a warehouse, 'appdna warehouse assignment' writes the \
                same assignment as one SQL query.
                """,
                operands: BucketFlags.operands,
                flags: BucketFlags.all,
                examples: [
                    ExampleSpec("appdna bucket user_12345 exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5",
                                "Which variant does user_12345 get?"),
                    ExampleSpec("appdna bucket user_12345 onboarding-v2 --bundle appdna-config.json --platform ios --explain",
                                "Evaluate status, platform, targeting and traffic allocation from the bundle, and show why."),
                    ExampleSpec("appdna bucket - exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5 --summary < ids.txt",
                                "Count a list of users per variant and test for sample-ratio mismatch."),
                    ExampleSpec("appdna bucket user_12345 --bundle appdna-config.json --platform ios",
                                "Every experiment of the bundle for one user."),
                    ExampleSpec("appdna bucket --vectors --count 50 --seed 7 > vectors.json",
                                "Golden cases to test an SDK port against."),
                    ExampleSpec("appdna bucket --find variant_b --count 3 exp_paywall_v3 a8f3c9d2 --variants control=0.5,variant_b=0.5",
                                "Three QA user ids that land in variant_b."),
                    ExampleSpec("appdna bucket --force-variant onboarding-v2=streamlined --force-variant paywall=annual --bundle @remote --platform ios --country US --app-version 2.4",
                                "A user id a device in that context assigns both variants, and the identify line for each SDK."),
                ],
                alternativeUsages: ["[OPTIONS] - EXPERIMENT [SALT] < ids.txt", "--bundle FILE [OPTIONS] USER", "--bundle FILE [OPTIONS] - < ids.txt",
                                    "--find VARIANT [OPTIONS] EXPERIMENT [SALT]", "--self-test", "--vectors [--count N] [--seed S]"],
                operandsGiven: BucketCommand.operandsGiven,
                run: BucketCommand.run),
            CommandSpec(
                ["bundle", "fetch"],
                summary: "Download the config bundle, check it, and write it atomically in the SDK's shape",
                discussion: BundleFetchCommand.discussion,
                flags: BundleFetchCommand.flags,
                examples: BundleFetchCommand.examples,
                run: BundleFetchCommand.run),
            CommandSpec(
                ["bundle", "validate"],
                summary: "Check config bundles the way the SDK will read them",
                discussion: """
                Checks each FILE (either bundle shape: the SDK file, or the API response with a content \
                wrapper) against every rule: JSON syntax with line and column, UTF-8, duplicate keys, \
                bundle_version, experiments (variants, ids, weights in 0..1 summing to 1, status, \
                traffic_allocation, blank salts, weights whose truncated bucket counts differ from the \
                intended split), flag wrappers, API section names, onboarding.active_flow_id and integers \
                beyond 2^53. Each finding has a stable code (E001.. errors, W001.. warnings, listed below), \
                a JSON Pointer and FILE:LINE:COL. Input that is not JSON is a finding (E001/E002), \
                so the status is 1, not 65. FILE @remote is the live bundle (APPDNA_SDK_KEY or --key-file, \
                --timeout, --retries, as bundle fetch); without an @remote FILE those three flags are refused \
                (64). Every FILE is checked before anything is downloaded. Exit 0 when every file is valid \
                (warnings allowed), 1 when one is invalid, 66 when a file is missing.
                """,
                operands: BundleValidateCommand.operands,
                flags: BundleValidateCommand.flags,
                examples: [
                    ExampleSpec("appdna bundle validate appdna-config.json", "Check the bundle an app ships."),
                    ExampleSpec("appdna bundle validate --strict --format github Resources/appdna-config.json",
                                "In GitHub Actions: fail on warnings too, and annotate the lines."),
                    ExampleSpec("curl -s -H \"x-api-key: $APPDNA_SDK_KEY\" https://api.appdna.ai/api/v1/sdk/config-bundle | appdna bundle validate -",
                                "Check what the API returns, from standard input."),
                ],
                references: [BundleValidateCommand.findingCodes],
                run: BundleValidateCommand.run),
            CommandSpec(
                ["bundle", "codegen"],
                summary: "Generate typed Swift accessors for the bundle's remote config and experiments",
                discussion: """
                Validates FILE, then writes one typed property per remote-config key (remote_config, else \
                feature_flags, as the SDK picks; the bundle's value is the default) and one enum per experiment \
                (its variant ids plus unknown(String)), read through the AppDNAValueSource protocol so the code \
                needs no SDK. Names follow one rule with _2, _3 … for collisions (docs/codegen.md). Same bundle, \
                same bytes. FILE @remote is the live bundle (APPDNA_SDK_KEY or --key-file, --timeout, \
                --retries, as bundle fetch); with another FILE those three flags are refused (64), and PATH is \
                checked writable before the bundle is read or downloaded. Exit 1 when the bundle is invalid \
                (nothing written) or, with --check, when PATH is stale or missing; 73 when PATH cannot be created.
                """,
                operands: BundleCodegenCommand.operands,
                flags: BundleCodegenFlags.all,
                examples: [
                    ExampleSpec("appdna bundle codegen appdna-config.json -o Sources/App/AppDNAConfig.swift", "Write the accessors."),
                    ExampleSpec("appdna bundle codegen --check appdna-config.json -o Sources/App/AppDNAConfig.swift", "In CI: fail when the committed accessors are stale."),
                ],
                run: BundleCodegenCommand.run),
            CommandSpec(
                ["bundle", "diff"],
                summary: "Show what changed between two bundles and what it does to users",
                discussion: """
                Compares OLD and NEW (files, or '-' for standard input; either bundle shape). Objects are \
                compared by key; arrays of objects by a unique id, key or name (moves are shown as moves); \
                other arrays by a linear-space sequence diff with a time bound (shuffled arrays get a \
                correct but coarser patch). Notes spell out what changes mean on devices: \
                the exact share of users who change variant when weights or variants change (over the \
                10,000 buckets, with the SDK's truncation), the expected share after a salt change \
                (about 1 - sum of w^2), users entering or leaving with traffic_allocation, status, variant \
                and flag changes, and bundle_version not increasing while the content changed. \
                --format patch prints an RFC 6902 JSON Patch that turns OLD into NEW (with --ignore, ignored \
                parts stay as in OLD). @remote stands for the live bundle, downloaded as bundle fetch does \
                (APPDNA_SDK_KEY or --key-file, APPDNA_API_URL, --timeout, --retries: refused, 64, when neither \
                side is @remote; every flag and the local side are checked before the download) and laid out in the SDK \
                file shape, and the other side with it when it is in the API's shape: 'appdna bundle diff appdna-config.json @remote' tells whether the embedded bundle \
                is stale. --format markdown prints a pull-request comment: the experiments whose users \
                switch variant (a table), the other notes, and the changes (collapsed when long). \
                Exit 0 when the bundles are the same, 1 when they differ, 65 when one is not JSON, \
                66 when a file is missing; with @remote also 69, 75, 77 and 78 as for bundle fetch. \
                With --fail-on-switch PERCENT (a CI gate) the status is 1 only when an experiment \
                running in both bundles would move more than PERCENT of its users to another variant \
                (the share the notes give), and 0 otherwise, whatever else changed.
                """,
                operands: BundleDiffCommand.operands,
                flags: BundleDiffCommand.flags,
                examples: [
                    ExampleSpec("appdna bundle diff old/appdna-config.json appdna-config.json", "What changed, and who switches variant?"),
                    ExampleSpec("appdna bundle diff --stat --ignore /generated_at a.json b.json", "A summary, ignoring the generation time."),
                    ExampleSpec("appdna bundle diff --format patch a.json b.json > change.json-patch", "An RFC 6902 patch from a.json to b.json."),
                    ExampleSpec("appdna bundle diff --stat MyApp/Resources/appdna-config.json @remote", "Is the embedded bundle stale?"),
                    ExampleSpec("appdna bundle diff --fail-on-switch 5 --format markdown main.json appdna-config.json > comment.md",
                                "In CI: a pull-request comment, and fail when a change moves more than 5% of an experiment's users."),
                ],
                run: BundleDiffCommand.run),
            CommandSpec(
                ["webhook", "verify"],
                summary: "Check a webhook delivery's signature, and say why it does not match",
                discussion: WebhookCommand.verifyDiscussion,
                operands: [WebhookCommand.bodyOperand],
                flags: WebhookCommand.verifyFlags,
                examples: WebhookCommand.examples,
                alternativeUsages: ["--request FILE [OPTIONS]", "--recorded FILE [--line N] [OPTIONS]"],
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
                ["webhook", "listen"],
                summary: "Receive deliveries locally: check each signature, log it, forward it to your handler",
                discussion: WebhookListenCommand.discussion,
                flags: WebhookListenCommand.flags,
                examples: WebhookListenCommand.examples,
                run: WebhookListenCommand.run),
            CommandSpec(
                ["webhook", "trigger"],
                summary: "Send a signed demo delivery of any event type, or replay recorded ones",
                discussion: WebhookTriggerCommand.discussion,
                operands: [WebhookTriggerCommand.typeOperand],
                flags: WebhookTriggerCommand.flags,
                examples: WebhookTriggerCommand.examples,
                alternativeUsages: ["--replay FILE --to URL [OPTIONS]", "--list"],
                run: WebhookTriggerCommand.run),
            CommandSpec(
                ["queue", "inspect"],
                summary: "Summarise device event queues and list the events the server would reject",
                discussion: QueueInspectCommand.discussion,
                operands: QueueInspectCommand.operands,
                flags: QueueInspectCommand.flags,
                examples: QueueInspectCommand.examples,
                alternativeUsages: ["--events [--name NAME] [--user ID] [--since TIME] [--until TIME] PATH..."],
                operandsGiven: QueueInspectCommand.operandsGiven,
                run: QueueInspectCommand.run),
            CommandSpec(
                ["queue", "replay"],
                summary: "Deliver the live events of device queues to the ingest API, resumably",
                discussion: QueueReplayCommand.discussion,
                operands: QueueInspectCommand.operands,
                flags: QueueReplayCommand.flags,
                examples: QueueReplayCommand.examples,
                run: QueueReplayCommand.run),
            CommandSpec(
                ["api", "serve"],
                summary: "Serve the config bundle (a file or @remote, with overrides) and event ingest, audited, with injected faults, on 127.0.0.1",
                discussion: APIServeCommand.discussion,
                flags: APIServeFlags.all,
                examples: APIServeCommand.examples,
                run: APIServeCommand.run),
            CommandSpec(
                ["api", "override"],
                summary: "Set, clear or list the overrides of a running api serve (a \(BundleOverride.Kind.listed(BundleOverride.Kind.allCases.map(\.forces))) forced on devices)",
                discussion: APIOverrideCommand.discussion,
                operands: [APIOverrideFlags.action, APIOverrideFlags.override],
                flags: APIOverrideFlags.all,
                examples: APIOverrideCommand.examples,
                run: APIOverrideCommand.run),
        ] + WarehouseQuery.allCases.map { $0.command(run: WarehouseCommand.run($0)) } + [
            CommandSpec(
                ["completions"],
                summary: "Print a shell completion script, or install it where your shell finds it",
                discussion: """
                Prints the completion script for SHELL on stdout. The same scripts ship in completions/. \
                'appdna completions install' writes it where the running user's shell looks, in the home \
                directory (bash: bash-completion's user directory; zsh: the first writable fpath entry \
                under the home directory when FPATH is exported, else ~/.zsh/completions; fish: \
                ~/.config/fish/completions), and prints what, if anything, to add to the shell's startup \
                file. --shell chooses the shell (default: the one SHELL names).
                """,
                operands: [OperandSpec("SHELL", "bash, zsh or fish; or install", completion: .choices(CompletionShell.allCases.map(\.rawValue) + ["install"]))],
                flags: CompletionsFlags.all,
                examples: [
                    ExampleSpec("appdna completions install", "Install completions for your shell, and see what to add to its rc file."),
                    ExampleSpec("appdna completions bash > /etc/bash_completion.d/appdna", "Install bash completions for every user."),
                    ExampleSpec("appdna completions fish > ~/.config/fish/completions/appdna.fish", "Install fish completions."),
                ],
                run: .planned(plan: GeneratedDocsCommand.completionsPlan, perform: GeneratedDocsCommand.completions)),
            CommandSpec(
                ["manpage"],
                summary: "Print the man page (mdoc)",
                discussion: "Prints appdna(1) in mdoc format on stdout. The same page ships as man/appdna.1.",
                examples: [ExampleSpec("appdna manpage | man -l -", "Read the manual.")],
                run: .planned(plan: GeneratedDocsCommand.manpagePlan, perform: GeneratedDocsCommand.manpage)),
        ],
        environment: {
            // Every command that reads a bundle takes @remote, so every one of them may use the key.
            let api: [[String]] = [["bundle", "fetch"], ["bundle", "diff"], ["bundle", "validate"], ["bundle", "codegen"], ["bucket"],
                                   ["queue", "inspect"], ["queue", "replay"], ["warehouse", "assignment"], ["warehouse", "audit"],
                                   ["warehouse", "srm"], ["warehouse", "duplicates"]]
            let webhook: [[String]] = [["webhook", "verify"], ["webhook", "sign"], ["webhook", "listen"], ["webhook", "trigger"]]
            return [
                EnvironmentSpec("APPDNA_SDK_KEY", "The SDK key (adn_live_ production or adn_test_ sandbox, then the key) that bundle fetch, @remote (wherever a bundle is read) and queue replay send as x-api-key, unless --key-file is given (and the one key api serve accepts when told to); never printed except masked",
                                usedBy: api + [["api", "serve"]]),
                EnvironmentSpec("APPDNA_API_URL", "The API base URL (default https://api.appdna.ai); plain http only for loopback hosts",
                                usedBy: api + [["api", "serve"]]),
                EnvironmentSpec("APPDNA_WEBHOOK_SECRET", "The webhook signing secret, unless --secret-file or --secret-stdin is given",
                                usedBy: webhook),
                EnvironmentSpec("APPDNA_SERVER", "The inspector of the running api serve that api override changes (http://127.0.0.1:PORT, the port it inspects on), unless --server is given; without either, the one api serve with an inspector running for this user (found in $XDG_RUNTIME_DIR/appdna, else ~/.appdna/run)",
                                usedBy: [["api", "override"]]),
                EnvironmentSpec("XDG_RUNTIME_DIR, HOME", "Where api serve with an inspector notes its address and pid while it runs, for api override to find it: $XDG_RUNTIME_DIR/appdna, else ~/.appdna/run",
                                usedBy: [["api", "serve"], ["api", "override"]]),
                EnvironmentSpec("CONFIGURATION", "Set by Xcode: Release with a sandbox key makes bundle fetch print an Xcode warning",
                                usedBy: [["bundle", "fetch"]]),
                EnvironmentSpec("GITHUB_ACTIONS", "Set by GitHub Actions: every error and warning (of any command) is a ::error:: or ::warning:: workflow command, shown on the pull request as an annotation, with the file and line where known (bundle validate's findings, bundle fetch's -o file, the experiment in bundle diff's NEW)",
                                usedBy: [["bundle", "fetch"], ["bundle", "validate"], ["bundle", "diff"]]),
                EnvironmentSpec("https_proxy, HTTPS_PROXY, http_proxy", "The proxy for HTTPS and for HTTP requests, read by libcurl as curl reads them (upper-case HTTP_PROXY is ignored, as by curl)",
                                usedBy: api),
                EnvironmentSpec("ALL_PROXY, all_proxy", "The proxy for any request that the variables above do not cover",
                                usedBy: api),
                EnvironmentSpec("NO_PROXY, no_proxy", "Hosts reached without a proxy (comma-separated; * for all)",
                                usedBy: api),
                EnvironmentSpec("CURL_CA_BUNDLE, SSL_CERT_FILE", "A CA bundle file to trust instead of the system's, such as a TLS-intercepting proxy's",
                                usedBy: api),
                EnvironmentSpec("SSL_CERT_DIR", "A directory of CA certificates to trust",
                                usedBy: api),
                EnvironmentSpec("APPDNA_LIBCURL", "The path of the libcurl to load instead of the system's libcurl.so.4 (libcurl.4.dylib on macOS)",
                                usedBy: api + [["webhook", "listen"], ["webhook", "trigger"]]),
                EnvironmentSpec("APPDNA_LIBSQLITE3", "The path of the SQLite library to load instead of the system's libsqlite3.so.0 (Android queues)",
                                usedBy: [["queue", "inspect"], ["queue", "replay"]]),
                EnvironmentSpec("APPDNA_LIBZ", "The path of the zlib to load instead of the system's libz.so.1 (raw DEFLATE for replay)",
                                usedBy: [["queue", "replay"]]),
                EnvironmentSpec("APPDNA_THREADS", "Worker threads for bucket - (default: one per core, at most 4); 1 reads, buckets and writes on one thread. The rows are the same bytes, in input order, either way",
                                usedBy: [["bucket"]]),
                EnvironmentSpec("TMPDIR", "Where SQLite queues are copied before they are opened (default /tmp)",
                                usedBy: [["queue", "inspect"], ["queue", "replay"]]),
                EnvironmentSpec("NO_COLOR", "When set and not empty, no colour (every command)"),
                EnvironmentSpec("TERM", "dumb turns colour off, as NO_COLOR does (every command)"),
                EnvironmentSpec("HOME", "Where completions install writes (under the home directory)", usedBy: [["completions"]]),
                EnvironmentSpec("SHELL", "The shell completions install installs for, unless --shell is given", usedBy: [["completions"]]),
                EnvironmentSpec("FPATH", "zsh's function path, when exported: completions install uses its first writable entry under HOME",
                                usedBy: [["completions"]]),
                EnvironmentSpec("ZDOTDIR", "zsh's startup-file directory (default HOME), for completions install", usedBy: [["completions"]]),
                EnvironmentSpec("XDG_DATA_HOME", "bash-completion's user directory is under it (default ~/.local/share), for completions install",
                                usedBy: [["completions"]]),
                EnvironmentSpec("BASH_COMPLETION_USER_DIR", "bash-completion's user directory, when set, for completions install", usedBy: [["completions"]]),
                EnvironmentSpec("XDG_CONFIG_HOME", "fish's configuration directory is under it (default ~/.config), for completions install",
                                usedBy: [["completions"]]),
            ]
        }())
}
