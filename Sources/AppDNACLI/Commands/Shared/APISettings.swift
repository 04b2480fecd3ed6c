import AppDNACore

/// The API flags of one command (`APIFlags.wholeCommand`: --key-file, --timeout, --retries),
/// read once into its plan, so the connection made later does not go back to the arguments.
struct APISettings: Sendable, Equatable {
    let keyFile: String?
    let timeout: Double
    let retries: Int
    /// The flags as given, as words to repeat in a "run …" hint (`APIFlags.givenWords`).
    let givenWords: [String]

    /// The flags' defaults: a plan whose mode reads no API flag.
    init() {
        keyFile = APIFlags.keyFile.absent()
        timeout = APIFlags.timeout.absent()
        retries = APIFlags.retries.absent()
        givenWords = []
    }

    /// The flags, for a bundle operand `bundle`: only `@remote` is downloaded, so with any other
    /// bundle each API flag given would change nothing and is refused (64), in one wording for
    /// every command that takes a bundle (`bundle validate|diff|codegen`, `bucket --bundle`,
    /// `queue inspect --bundle`, `warehouse`).
    init(_ arguments: ParsedArguments, bundle: String?) throws(Failure) {
        guard bundle == BundleArgument.remote else {
            try ModeFlags("local bundles", reads: [], instead: APIFlags.wholeCommand.map { ($0, "it is for downloading the live bundle (@remote)") })
                .check(arguments, declared: APIFlags.wholeCommand)
            self.init()
            return
        }
        self.init(arguments)
    }

    init(_ arguments: ParsedArguments) {
        keyFile = arguments[APIFlags.keyFile]
        timeout = arguments[APIFlags.timeout]
        retries = arguments[APIFlags.retries]
        givenWords = APIFlags.givenWords(arguments)
    }
}
