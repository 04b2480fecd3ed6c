import AppDNACore

/// The flags of `bundle fetch`, `bundle validate` and `bundle diff`, each declared once.
/// The API flags (--key-file, --timeout, --retries) come from `APIFlags`.
enum BundleFetchFlags {
    static let output = Flag.defaulted("output", short: "o", value: "PATH", "Where to write the bundle ('-' for stdout)",
                                       completion: .file, default: "appdna-config.json", .text)
    static let force = Flag.switch("force", "Download even when the server's bundle_version equals the file's")
    static let raw = Flag.switch("raw", "Write the response bytes exactly as received instead of the SDK file shape")
    static let noValidate = Flag.switch("no-validate", "Write the bundle even when it fails the checks")
    static let requireLive = Flag.switch("require-live", "Fail unless the key is a production (adn_live_) key")
    static let minVersion = Flag.optional("min-version", value: "N", "Fail when the server's bundle_version is lower than N",
                                          .integer(0...Int.max))
    static let check = Flag.switch("check", "Only compare the file's bundle_version with the live one; download and write nothing",
                                   details: "Asks only GET /api/v1/sdk/config-bundle/version. Prints 'up to date (bundle_version 42)' and exits 0 when the file at -o has the live bundle_version; prints 'behind: file bundle_version 41, live bundle_version 42' and exits 1 when it differs, or when the file is missing or not a valid bundle (the line says which).")
    static let keepOnFailure = Flag.switch("keep-on-failure", "Keep a valid existing file and exit 0 with a warning when the API cannot be reached",
                                           details: "Applies to network errors, 5xx, 408 and timeouts only; 401/403, an invalid bundle, a missing library or a configuration error still fail. The warning names the kept bundle_version and the failure, as an Xcode 'warning:' line, or a '::warning file=…::' line when GITHUB_ACTIONS is set. With no valid file to keep, the failure's hint says so (nothing to keep: the file does not exist yet, or is invalid).")

    static let maxSize = Flag.defaulted("max-size", value: "SIZE", "Fail when the bundle answer, decoded, is larger than SIZE (a compressed answer counts inflated)",
                                        default: "64MiB", .size((1 << 10)...(1 << 30)))

    static let json = OutputFlags.json("Print what was done as one JSON document: path, written, up_to_date, bundle_version, bytes, experiments, flags, shape (with --check: live_version, file_version, file)")

    static let all: [FlagSpec] = [output.spec] + APIFlags.wholeCommand
        + [force.spec, raw.spec, noValidate.spec, requireLive.spec, minVersion.spec, maxSize.spec, check.spec, keepOnFailure.spec, json.spec]
}

enum BundleValidateFlags {
    enum Format: String, CaseIterable, Sendable { case text, json, github }

    static let strict = Flag.switch("strict", "Treat warnings as errors")
    static let format = Flag.defaulted("format", value: "FORMAT", "text (FILE:LINE:COL: error: message [CODE]), json, or github (Actions annotations)",
                                       default: "text", .choice(Format.self))
    static let json = OutputFlags.json("Same as --format json")

    static let all: [FlagSpec] = [strict.spec, format.spec, json.spec] + APIFlags.wholeCommand
}

enum BundleDiffFlags {
    enum Format: String, CaseIterable, Sendable { case text, json, patch, markdown }

    static let format = Flag.defaulted("format", value: "FORMAT", "text, json (changes and notes), patch (RFC 6902 JSON Patch turning OLD into NEW) or markdown (a pull-request comment)",
                                       default: "text", .choice(Format.self))
    static let failOnSwitch = Flag.optional("fail-on-switch", value: "PERCENT", "CI gate: exit 1 only when a running experiment moves more than PERCENT of its users to another variant, else 0",
                                            .percentage)
    static let stat = Flag.switch("stat", "Print only a summary: changes per section")
    static let ignore = Flag.repeated("ignore", value: "POINTER", "Leave out changes at or under this JSON Pointer (e.g. /generated_at)", .jsonPointer)

    static let json = OutputFlags.json("Same as --format json")

    static let all: [FlagSpec] = [format.spec, json.spec, failOnSwitch.spec, stat.spec, ignore.spec] + APIFlags.wholeCommand
}

extension FlagValue where Value == Double {
    /// `10`, `10%` or `2.5`: a percentage from 0 to 100.
    static var percentage: FlagValue<Double> {
        FlagValue(range: "0-100", bounds: 0...100, choices: nil, sample: "0") { long, text throws(Failure) in
            let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
            guard let value = Double(digits), value.isFinite, (0...100).contains(value) else {
                throw Failure(.usage, "--\(long) takes a percentage from 0 to 100 (e.g. 5 or 5%), not '\(text)'")
            }
            return value
        }
    }
}

extension FlagValue where Value == JSONPointer {
    /// An RFC 6901 JSON Pointer (`/generated_at`).
    static var jsonPointer: FlagValue<JSONPointer> {
        FlagValue(range: nil, choices: nil, sample: "/a") { long, text throws(Failure) in
            do throws(JSONPointerError) {
                return try JSONPointer(parsing: text)
            } catch {
                throw Failure(.usage, "--\(long): '\(text)' is not a JSON Pointer (RFC 6901): \(error.problem)")
            }
        }
    }
}

enum BundleCodegenFlags {
    /// The languages `bundle codegen` writes.
    enum Language: String, CaseIterable, Sendable {
        case swift, kotlin

        var displayName: String { self == .swift ? "Swift" : "Kotlin" }
        var fileExtension: String { self == .swift ? "swift" : "kt" }

        /// The language a file name's extension says (`.swift`, `.kt`; ASCII case ignored).
        init?(extensionOf path: String) {
            let name = path.split(separator: "/").last.map { $0.lowercased() } ?? ""
            guard let match = Self.allCases.first(where: { name.hasSuffix("." + $0.fileExtension) }) else { return nil }
            self = match
        }
    }

    static let language = Flag.defaulted("language", value: "LANGUAGE", "The language of the accessors; when absent, a .kt or .swift -o PATH decides", default: "swift", .choice(Language.self))
    static let output = Flag.optional("output", short: "o", value: "PATH", "Write the accessors to PATH ('-' or absent: standard output)",
                                      completion: .file, .path)
    static let check = Flag.switch("check", "CI drift gate: compare PATH with what would be generated; exit 1 with a diff when stale or missing, never write")

    static let package = Flag.defaulted("package", value: "NAME", "With --language kotlin: the package of the generated file",
                                        default: KotlinAccessorRenderer.defaultPackage, .text)

    static let all: [FlagSpec] = [language.spec, output.spec, check.spec, package.spec] + APIFlags.wholeCommand
}
