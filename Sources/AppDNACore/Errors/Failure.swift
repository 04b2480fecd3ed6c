/// What kind of failure an error is, as far as a caller deciding what to do next is concerned.
///
/// The core library classifies; only the CLI layer turns a kind into an exit status
/// (see `ExitStatus` in AppDNACLI), so the numbers live in exactly one place.
public enum FailureKind: Sendable, Equatable {
    /// The caller asked for something that does not make sense (bad flag value, unknown name).
    case usage
    /// Input that had to be read is malformed (not JSON, bad signature header).
    case malformedInput
    /// An input file is missing or unreadable.
    case inputMissing
    /// The service could not be reached or answered with a permanent server error.
    case unavailable
    /// A bug: something that should not happen did.
    case internalError
    /// An output file could not be created.
    case cannotCreateOutput
    /// Reading or writing failed part-way.
    case ioError
    /// Retrying later may work (timeout, 429/503 after retries).
    case temporary
    /// The server rejected the credentials.
    case permissionDenied
    /// A key, secret or setting is missing or malformed.
    case configuration
}

/// An error the CLI can report without knowing its concrete type: one line of `message`
/// (what failed and why) and, where it helps, a `hint` on what to do about it. Its
/// `description` is the message, so an error interpolated anywhere reads in the tool's words,
/// never as a dump of its fields (`JSONSyntaxError(reason: AppDNACore.JSONSyntaxError.Reason…)`).
public protocol ClassifiedError: Error, CustomStringConvertible {
    var kind: FailureKind { get }
    var message: String { get }
    var hint: String? { get }
    /// When the fix is a setting of the command's: what to set (the CLI words it as the hint).
    var remedy: Remedy? { get }
    /// When what failed is one of the command's settings: the fact, which the CLI words as the
    /// message with its flag (`message` is the same sentence without one).
    var settingFact: SettingFact? { get }
}

extension ClassifiedError {
    public var description: String { message }
    public var hint: String? { nil }
    public var remedy: Remedy? { nil }
    public var settingFact: SettingFact? { nil }
}

/// A plain classified error for the many places that need nothing more specific.
public struct Failure: ClassifiedError, Equatable {
    public var kind: FailureKind
    public var message: String
    public var hint: String?
    /// When the fix is a setting of the command's (which Core does not name): the CLI words it
    /// as the hint.
    public var remedy: Remedy?
    /// When what failed is a setting of the command's: the CLI words the message with its flag.
    public var settingFact: SettingFact?

    public init(_ kind: FailureKind, _ message: String, hint: String? = nil, remedy: Remedy? = nil,
                settingFact: SettingFact? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
        self.remedy = remedy
        self.settingFact = settingFact
    }
}

/// A failure of one of the command's settings (a time limit, the listening
/// address): a fact for the CLI to word with its flag names (AppDNACLI's `FlagWording`), so
/// Core and Net never name a flag.
public enum SettingFact: Sendable, Equatable {
    /// A FIFO or device output at `path` was not read before the command's time limit ran out.
    case outputNotReadInTime(path: String)
    /// The address to listen on is neither an IPv4 nor an IPv6 address.
    case listenAddressInvalid(String)
    /// A table or column name a warehouse query would read is not a plain SQL identifier.
    case notPlainSQLName(WarehouseName, String)
    /// The variant a search looks for is not one of the experiment's (`variants`, in order).
    case noSuchVariant(String, variants: [String])
    /// The variant a search looks for owns no bucket, so no user lands in it.
    case variantWithoutBuckets(String)
    /// A search for `wanted` ids in `variant` (which owns `owned` of `buckets` buckets) would
    /// take about `expectedTries` hashes, more than `limit`.
    case searchTooLong(variant: String, owned: Int, buckets: Int, wanted: Int, expectedTries: Int, limit: Int)
    /// The file to record to at `path` is not a regular file (`what` says what it is instead).
    case recordFileNotRegular(path: String, what: String)
}

/// What would fix a failure when that is something the user sets: a fact for the CLI to word
/// with its flag names (AppDNACLI's `FlagWording`), so Core never names a flag.
public enum Remedy: Sendable, Equatable {
    /// The replay state directory holds something else: give the replay one of its own.
    case stateDirectoryOfItsOwn
    /// The replay state directory cannot be created: put it somewhere writable.
    case writableStateDirectory
    /// A file is not a list of recorded webhook deliveries: record some.
    case recordedDeliveries
    /// No webhook secret: give one (environment, file or standard input).
    case webhookSecret
    /// No usable signature header line: give the signature header or the signature.
    case signature
    /// The API refused the key: check the key in use (`host` also when a network rule may be
    /// refusing the request instead).
    case currentAPIKey(orNetworkBlockedFrom: String?)
    /// The overall time limit ran out: allow more time, or retry later.
    case longerTimeout
    /// The listening port is taken: pick another.
    case otherPort
    /// A FIFO output was not read in time: start its reader first, or allow more time.
    case fifoReader
    /// An answer was larger than the command's limit on answers: raise it if that is right.
    case largerResponseLimit
    /// A search would take too long: ask for at most this many ids.
    case fewerIDs(Int)
}
