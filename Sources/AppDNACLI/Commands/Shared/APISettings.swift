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

    init(_ arguments: ParsedArguments) {
        keyFile = arguments[APIFlags.keyFile]
        timeout = arguments[APIFlags.timeout]
        retries = arguments[APIFlags.retries]
        givenWords = APIFlags.givenWords(arguments)
    }
}
