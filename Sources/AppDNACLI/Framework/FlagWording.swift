import AppDNACore
import AppDNAServers

// Core reports facts (which input is missing, what is wrong with a value); the CLI words them
// with its flags, so Core never names a flag.

extension Failure {
    /// The same failure, its message led by the flag that gave the bad value
    /// (`--variants: weights sum to 0.9, not 1`).
    func naming(_ flag: String) -> Failure {
        Failure(kind, flag + ": " + message, hint: hint)
    }
}

enum FlagWording {
    /// The error's hint: Core's own, or, where the remedy is one of the CLI's flags, the CLI's
    /// wording of it (Core says what is missing; only the CLI knows which flags give it).
    static func hint(for error: ClassifiedError) -> String? {
        error.hint ?? error.remedy.map(text)
    }

    /// The error's message: Core's own, or, where what failed is one of the CLI's settings, the
    /// CLI's wording of it with the flag.
    static func message(for error: ClassifiedError) -> String {
        error.settingFact.map(text) ?? error.message
    }

    /// Any thrown error in the tool's words: a classified one as above; anything else is a bug,
    /// named by its type only (interpolating the error itself would print a Swift dump of its
    /// fields, as `JSONSyntaxError(reason: AppDNACore.JSONSyntaxError.Reason…)` once did).
    /// The one way the CLI turns an error into text; `ErrorWordingTests` keeps it so.
    static func message(for error: any Error) -> String {
        if let classified = error as? ClassifiedError { return message(for: classified) }
        return "internal error: an unexpected \(type(of: error)) was thrown"
    }

    static func text(_ fact: SettingFact) -> String {
        switch fact {
        case .outputNotReadInTime(let path): return "\(path): nothing read it before the time limit (--timeout) ran out; not written"
        case .listenAddressInvalid(let host): return "--host '\(host)' is not an IPv4 or IPv6 address"
        case .notPlainSQLName(let role, let name):
            return "\(WarehouseFlags.flag(for: role)) '\(name)' is not a plain SQL identifier (\(SQLQuoting.plainIdentifierRule))"
        case .noSuchVariant(let variant, let variants): return "--find: no variant '\(variant)'; the variants are " + variants.joined(separator: ", ")
        case .variantWithoutBuckets(let variant): return "--find: variant '\(variant)' owns no buckets, so no user lands in it"
        case .searchTooLong(let variant, let owned, let buckets, let wanted, let expected, let limit):
            return "--find: '\(variant)' owns \(owned) of \(buckets) buckets, so \(wanted) id(s) take about \(expected) tries, more than the \(limit) allowed"
        case .recordFileNotRegular(let path, let what): return "\(path) \(what): --record writes only to a regular file"
        }
    }

    /// `webhook listen`'s words for what names a flag (AppDNAServers names none).
    static let listen = ListenWords(undiagnosed: "webhook verify --explain diagnoses them")

    /// `api serve`'s words for the facts that name its flags (AppDNAServers names none).
    static let serve = ServeWords(injectedFailure: "injected by --fail", batchLimit: "--status-413-over", error: { message(for: $0) })

    /// The flag that sets the body limit a 413's reason names (`webhook listen`).
    static let bodyLimitSetting = "--max-body"

    static func text(_ remedy: Remedy) -> String {
        switch remedy {
        case .stateDirectoryOfItsOwn: return "point --state-dir at a directory of its own"
        case .writableStateDirectory: return "use --state-dir to put it somewhere writable"
        case .recordedDeliveries: return "record deliveries with 'appdna webhook listen --record FILE'"
        case .webhookSecret: return "set APPDNA_WEBHOOK_SECRET, or pass --secret-file PATH or --secret-stdin"
        case .signature: return "pass --header 'X-AppDNA-Signature: sha256=<hex>' or --signature sha256=<hex>"
        case .currentAPIKey(let blockedFrom):
            return "check that APPDNA_SDK_KEY (or --key-file) holds a current SDK key of this app"
                + (blockedFrom.map { "; if it does, this network may be blocked from \($0)" } ?? "")
        case .longerTimeout: return "the service is slow or unreachable; raise --timeout or retry later"
        case .otherPort: return "another program uses that port; pick another with --port (0 picks a free one)"
        case .fifoReader: return "start the reader of the FIFO first, or raise --timeout"
        case .largerResponseLimit: return "if the bundle really is this large, raise --max-size"
        case .fewerIDs(let count): return "ask for at most --count \(count) ids for this variant"
        }
    }
}

extension ContextInput {
    /// The flag that gives this input, as help and `bucket` output name it.
    var flagText: String {
        switch self {
        case .platform: return "--platform"
        case .country: return "--country"
        case .appVersion: return "--app-version"
        case .installedAt: return "--installed-at"
        case .trait(let name): return "--trait \(name)=VALUE"
        }
    }
}
