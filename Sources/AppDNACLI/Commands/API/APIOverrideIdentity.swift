import AppDNACore
import AppDNAServers
import AppDNANet

/// `appdna api override identity experiment:KEY=VARIANT --platform P …` (issue 51.2): asks the
/// running server's inspector (`POST /api/identity`) for a user id a device in that context
/// assigns the variant, in the bundle the server was given without its overrides, and prints
/// it with the `identify` line for each SDK, as `bucket --force-variant` does.
enum APIOverrideIdentity {
    /// The body for `operand` and the context flags.
    static func body(_ operand: String, _ arguments: ParsedArguments) throws -> [UInt8] {
        let item = try BundleOverride(parsing: operand)
        guard item.kind == .experiment, case .string(let variant) = item.value else {
            throw Failure(.usage, "api override identity takes experiment:KEY=VARIANT, not '\(operand)'")
        }
        var context = JSONObject()
        if let platform = arguments[APIOverrideFlags.platform] { context["platform"] = .string(platform.rawValue) }
        if let country = arguments[APIOverrideFlags.country] { context["country"] = .string(country) }
        if let version = arguments[APIOverrideFlags.appVersion] { context["app_version"] = .string(version) }
        if let installed = arguments[APIOverrideFlags.installedAt] { context["installed_at_ms"] = .integer(installed) }
        let traits = arguments[APIOverrideFlags.trait]
        if !traits.isEmpty { context["traits"] = .object(JSONObject(traits.map { ($0.key, JSONValue.string($0.value)) })) }
        return JSONWriter().write(["force": .object(JSONObject([(item.key, .string(variant))])), "context": .object(context)])
    }

    /// Prints the answer (or its JSON), or fails with the server's reasons.
    static func report(_ answer: HTTPResponse, json: Bool, _ invocation: Invocation) throws -> ExitStatus {
        let document = try? JSONDocument(bytes: answer.body)
        guard answer.status == 200, let document, let user = document.root["user_id"]?.string else {
            let message = document?.root["error"]?.string ?? "answer \(answer.status) without an error message"
            switch answer.status {
            case 400, 409: throw Failure(.usage, message)
            case 404: throw Failure(.unavailable, "the server has no POST /api/identity (is it an appdna api serve --inspect of this version?)")
            default: throw Failure(.unavailable, message)
            }
        }
        if json {
            invocation.stdout.writeVerbatimLine(JSONWriter().writeString(document.root.value))
            return .success
        }
        invocation.stdout.writeLine("user id  \(user)")
        for row in document.root["experiments"].map({ Array($0.elements) }) ?? [] {
            invocation.stdout.writeLine("  \(row["experiment"]?.string ?? "?")  \(row["variant"]?.string ?? "?")  (bucket \(row["bucket"]?.numberText ?? "?"))")
        }
        invocation.stdout.writeLine("identify it before the first variant is read (every SDK version assigns from this id):")
        for language in IdentifyLine.allCases {
            invocation.stdout.writeLine("  \(language.language): \(document.root["identify"]?[language.rawValue]?.string ?? language.line(user))")
        }
        return .success
    }
}
