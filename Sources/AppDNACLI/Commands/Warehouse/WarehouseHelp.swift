import AppDNACore

/// What `appdna warehouse … --help` and the man page say about each query.
enum WarehouseHelp {
    static let bundleOperand = OperandSpec("BUNDLE", "The config bundle: a file, '-' for standard input, or @remote for the live bundle",
                                           completion: .file)

    /// "clickhouse, spark, duckdb", from the engines the tool knows.
    static var engineList: String { SQLEngines.names.joined(separator: ", ") }

    private static var common: String {
        """
        --dialect is the engine (\(engineList)); the query is written for it alone. BUNDLE is read once \
        (a file, '-', or @remote). Table and column names must be plain SQL identifiers (letters, \
        digits, '_', optionally db.table; 64 otherwise); bundle values become literals, never SQL. \
        A bundle with rule-level validation errors still becomes SQL that does what devices do \
        with them; the error count goes to stderr, the query alone to stdout. Columns of the \
        same name have the same type on every engine.
        """
    }

    static var assignmentDiscussion: String {
        """
        Prints one query that returns, for every user of the table (--table, --user-column) and \
        every experiment of BUNDLE (or each --experiment), user_id, experiment, bucket (a 64-bit \
        integer), variant (NULL when the experiment assigns none) and eligible ('yes', 'no' or \
        'unknown'): the values 'appdna bucket -' prints with BUNDLE for the same users and \
        context. A context column that is not mapped (--platform-column, --country-column, \
        --app-version-column, --installed-at-column, --trait-column) leaves the rules that need \
        it unknown, as a flag not given to bucket does; a NULL in a mapped column is unknown for \
        that row. Text compares byte for byte (countries and trait values as written; a string \
        value of gt/gte/lt/lte as text), platform names without case.
        """ + "\n" + common
    }

    static var auditDiscussion: String {
        """
        Prints the exposure audit that 'appdna queue inspect' runs with a bundle as one query over a table of \
        recorded exposures (--exposures, one row per exposure): one row per exposure that \
        disagrees with BUNDLE, event_id, experiment, recorded, expected, cause. The causes, \
        judged in this order: bundle-version (the row's --bundle-version-column is not the \
        file's), experiment-missing, experiment-not-running, blank-salt-old-ios, \
        user-id-not-normalised, not-eligible, unexplained. A cause whose column is not mapped \
        (--platform-column, --sdk-version-column, --bundle-version-column, ...) is not claimed; \
        rows without a user id or an experiment are skipped. The user column holds the id \
        devices hashed (user_id, else anon_id).
        """ + "\n" + common
    }

    static var srmDiscussion: String {
        """
        Prints one query that checks each running experiment of BUNDLE (or each --experiment) \
        with at least two variants for a sample-ratio mismatch: per variant, users (the distinct \
        users exposed), expected_share (the share of the 10,000 buckets devices give it), and \
        per experiment chi_square, degrees_of_freedom, p_value and sample_ratio_mismatch (true \
        when p < 0.001) - the names of the JSON summary of 'appdna bucket'. The p-value is \
        exact: the closed form of the chi-square tail for integer degrees of freedom (erfc is \
        the engine's own where it has one, else a Chebyshev fit with fractional error under \
        1.2e-7), kept within 0 and 1.
        """ + "\n" + common
    }

    static var duplicatesDiscussion: String {
        """
        Prints one query that counts, per experiment of BUNDLE (or each --experiment) with \
        exposures, the sessions, exposures, duplicate_exposures (every exposure after the first \
        of a user in a session: the SDK records one per experiment per session) and \
        users_with_duplicates, as 64-bit integers. Rows without a session or a user are not \
        counted, as the audit of 'appdna queue inspect' skips such events.
        """ + "\n" + common
    }

    static let assignmentExamples = [
        ExampleSpec("appdna warehouse assignment appdna-config.json --dialect clickhouse --table analytics.users --platform-column platform",
                    "Every user's variant and eligibility, as ClickHouse SQL."),
        ExampleSpec("appdna warehouse assignment appdna-config.json --dialect spark --experiment checkout --trait-column plan=plan_tier",
                    "One experiment, as Spark SQL, with the trait plan read from the column plan_tier."),
    ]

    static let auditExamples = [
        ExampleSpec("appdna warehouse audit appdna-config.json --dialect duckdb --exposures exposures --platform-column platform --sdk-version-column sdk_version",
                    "The exposures that disagree with the bundle, and why, as DuckDB SQL."),
    ]

    static let srmExamples = [
        ExampleSpec("appdna warehouse srm appdna-config.json --dialect clickhouse --exposures analytics.exposures",
                    "A sample-ratio-mismatch test per running experiment."),
    ]

    static let duplicatesExamples = [
        ExampleSpec("appdna warehouse duplicates appdna-config.json --dialect spark --exposures exposures --session-column session",
                    "Exposures repeated within a session, per experiment."),
    ]
}
