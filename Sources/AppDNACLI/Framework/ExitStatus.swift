import AppDNACore

/// The exit statuses of the contract, the same for every command (BSD sysexits numbers).
/// This is the only place where a failure becomes a number.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case negative = 1
    case usage = 64
    case malformedInput = 65
    case inputMissing = 66
    case unavailable = 69
    case internalError = 70
    case cannotCreateOutput = 73
    case ioError = 74
    case temporaryFailure = 75
    case permissionDenied = 77
    case configuration = 78
    case interrupted = 130
    case terminated = 143

    /// The wording used in `--help` and the man page.
    public var meaning: String {
        switch self {
        case .success: return "success; valid; no differences; all events delivered"
        case .negative: return "a negative answer: bundle invalid, differences found, signature mismatch, events left undelivered"
        case .usage: return "usage error (unknown flag, missing argument)"
        case .malformedInput: return "input data malformed where the command needed to read it (not JSON, bad signature header)"
        case .inputMissing: return "input file missing or unreadable"
        case .unavailable: return "service unavailable (network error, 5xx after retries, 404)"
        case .internalError: return "internal error (a bug)"
        case .cannotCreateOutput: return "cannot create output file"
        case .ioError: return "I/O error"
        case .temporaryFailure: return "temporary failure (timeout, 429/503 after retries): retrying later may work"
        case .permissionDenied: return "permission denied by the server (401/403: key rejected)"
        case .configuration: return "configuration error (missing or malformed API key or secret)"
        case .interrupted: return "interrupted by SIGINT (Ctrl-C) after saying what was done; queue replay resumes when run again"
        case .terminated: return "stopped by SIGTERM after saying what was done; queue replay resumes when run again"
        }
    }

    public init(_ kind: FailureKind) {
        switch kind {
        case .usage: self = .usage
        case .malformedInput: self = .malformedInput
        case .inputMissing: self = .inputMissing
        case .unavailable: self = .unavailable
        case .internalError: self = .internalError
        case .cannotCreateOutput: self = .cannotCreateOutput
        case .ioError: self = .ioError
        case .temporary: self = .temporaryFailure
        case .permissionDenied: self = .permissionDenied
        case .configuration: self = .configuration
        }
    }
}
