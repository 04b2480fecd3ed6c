/// One problem `bundle validate` found: a rule code, a severity, where (JSON Pointer and
/// line:column) and a one-line message.
public struct BundleFinding: Equatable, Sendable {
    public enum Severity: String, Sendable, Comparable {
        case warning
        case error
        public static func < (a: Severity, b: Severity) -> Bool { a == .warning && b == .error }
    }

    public let rule: BundleRule
    public var severity: Severity
    public let message: String
    public let pointer: JSONPointer
    public var line: Int
    public var column: Int
    /// Where in the bytes the finding points (for ordering).
    public let byteOffset: Int

    public var code: String { rule.code }

    public init(rule: BundleRule, message: String, pointer: JSONPointer, line: Int, column: Int, byteOffset: Int) {
        self.rule = rule
        self.severity = rule.severity
        self.message = message
        self.pointer = pointer
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }
}

/// Every rule of `bundle validate`. Codes are stable: a rule may be added, never renumbered.
public enum BundleRule: String, CaseIterable, Sendable {
    case syntax = "E001"
    case invalidUTF8 = "E002"
    case duplicateKey = "E003"
    case rootNotObject = "E004"
    case bundleVersion = "E005"
    case sectionType = "E006"
    case experimentType = "E007"
    case variantsMissing = "E008"
    case variantType = "E009"
    case variantID = "E010"
    case duplicateVariantID = "E011"
    case weightType = "E012"
    case weightRange = "E013"
    case weightSum = "E014"
    case trafficAllocation = "E015"
    case activeFlow = "E016"
    case platformsType = "E017"
    case targetingRule = "E018"
    case bundleVersionMissing = "W001"
    case status = "W002"
    case blankSalt = "W003"
    case weightTruncation = "W004"
    case flagWrapper = "W005"
    case contentWrapper = "W006"
    case apiSectionName = "W007"
    case unsafeInteger = "W008"
    case lookalikeID = "W009"
    case platformCase = "W010"
    case countryCode = "W011"
    case textComparison = "W012"

    public var code: String { rawValue }

    public var severity: BundleFinding.Severity { rawValue.hasPrefix("E") ? .error : .warning }

    /// One line: what the rule checks.
    public var summary: String {
        switch self {
        case .syntax: return "the file is not JSON (syntax error, empty, truncated, nested deeper than 1000, NUL or other control bytes)"
        case .invalidUTF8: return "the file is not valid UTF-8"
        case .duplicateKey: return "an object names the same key twice (JSON readers disagree which value wins)"
        case .rootNotObject: return "the top-level value is not an object"
        case .bundleVersion: return "bundle_version is not an integer from 0 to 2^63-1 (the SDK reads an Int)"
        case .sectionType: return "a section (experiments, remote_config, feature_flags, paywalls, onboarding, onboarding.flows, …) is not an object"
        case .experimentType: return "an experiment is not an object"
        case .variantsMissing: return "an experiment's variants are missing, not an array, or empty"
        case .variantType: return "a variant is not an object"
        case .variantID: return "a variant's id is missing or not a non-empty string"
        case .duplicateVariantID: return "two variants of one experiment have the same id"
        case .weightType: return "a variant's weight is missing or not a finite number"
        case .weightRange: return "a variant's weight is outside 0..1"
        case .weightSum: return "an experiment's weights do not sum to 1 (±1e-9)"
        case .trafficAllocation: return "traffic_allocation is not a number in 0..1"
        case .activeFlow: return "onboarding.active_flow_id does not name a flow in onboarding.flows"
        case .platformsType: return "platforms is not a list of platform names: devices run the experiment nowhere (fails closed)"
        case .targetingRule: return "a targeting rule no user can pass (not the type the SDK reads, unknown operator, 'in' without a list, gt/gte/lt/lte against a boolean, list or object): devices assign no one"
        case .bundleVersionMissing: return "bundle_version is missing"
        case .status: return "an experiment's status is missing or not running, paused or completed"
        case .blankSalt: return "an experiment's salt is missing, empty or blank (old iOS and Android assign differently)"
        case .weightTruncation: return "devices' truncated bucket counts differ from the intended split"
        case .flagWrapper: return "a flag is stored as a {value, type} wrapper (the app receives a dictionary)"
        case .contentWrapper: return "the bundle is the API response shape with a content wrapper (the SDK loads only bundle_version)"
        case .apiSectionName: return "a section has its API name (onboarding_flows, in_app_messages), which the SDK does not read"
        case .unsafeInteger: return "an integer beyond 2^53 (Android and JavaScript lose precision)"
        case .platformCase: return "a platform name is not lower case (devices compare without case; other tools may not)"
        case .countryCode: return "a targeting country is not two upper-case letters (codes are compared exactly: \"us\" matches no device)"
        case .textComparison: return "a gt/gte/lt/lte trait rule against a string value, which compares text byte for byte (\"9\" > \"18\"), not numbers"
        case .lookalikeID: return "two experiment ids, variant ids of one experiment or flag keys differ only in Unicode normalisation (NFC vs NFD): one text to people, two ids to devices"
        }
    }
}
