import AppDNACore

/// What one `bundle codegen` run does, decided once from the arguments: the bundle, where the
/// accessors go, in which language, and the live bundle's configuration when the bundle is
/// `@remote` (78). `-o -` is standard output (as for `bundle fetch`); a `.kt` PATH means
/// Kotlin and a `.swift` PATH Swift, and `--language` saying otherwise is a usage error (a file
/// named `.kt` holding Swift compiles nowhere). A missing FILE is 66 here, before anything is
/// read or sent.
struct BundleCodegenPlan {
    enum Destination: Equatable {
        case standardOutput
        case write(String)
        /// --check: compare PATH; `regenerate` is the command that writes what is expected.
        case check(String, regenerate: String)
    }

    let bundle: BundleOperand
    let destination: Destination
    let language: BundleCodegenFlags.Language
    /// Kotlin's package (nil for Swift).
    let package: String?
    let live: LiveBundleSource?

    static func make(_ arguments: ParsedArguments, _ io: CommandIO) throws -> BundleCodegenPlan {
        let bundle = try BundleOperand(arguments.operands[0])
        let output = arguments[BundleCodegenFlags.output]
        if case .file(let input) = bundle { try OutputPaths.refuseSameFile([("FILE", input), ("-o", output)]) }
        if (output == nil || output == "-") && arguments[BundleCodegenFlags.check] {
            throw Failure(.usage, "--check needs -o PATH: the generated file to compare")
        }
        var language = arguments[BundleCodegenFlags.language]
        if let output, output != "-", let implied = BundleCodegenFlags.Language(extensionOf: output) {
            if arguments.given(BundleCodegenFlags.language.spec), language != implied {
                throw Failure(.usage, "--language \(language.rawValue) writes \(language.displayName), but \(output) is a \(implied.displayName) file name; "
                              + "use --language \(implied.rawValue), or leave --language out (a .\(implied.fileExtension) PATH means \(implied.displayName))")
            }
            language = implied
        }
        let package: String?
        switch language {
        case .swift:
            if arguments.given(BundleCodegenFlags.package.spec) { throw Failure(.usage, "--package is for --language kotlin (Swift has modules, not packages)") }
            package = nil
        case .kotlin:
            package = try kotlinPackage(arguments[BundleCodegenFlags.package])
        }
        let live = try LiveBundleSource.plan(arguments, io, remote: bundle == .remote)
        try bundle.checkPresent(io.files)
        let destination: Destination
        switch output {
        case nil, "-": destination = .standardOutput
        case let path? where arguments[BundleCodegenFlags.check]:
            destination = .check(path, regenerate: regenerateCommand(language: language, package: package, apiWords: live?.givenWords ?? [],
                                                                     bundle: bundle.argument, output: path))
        case let path?: destination = .write(path)
        }
        return BundleCodegenPlan(bundle: bundle, destination: destination, language: language, package: package, live: live)
    }

    /// The command that writes what `--check` expected, runnable as printed: the language and
    /// package (which decide the bytes) and the API flags given (which `@remote` needs), with
    /// every word quoted for the shell.
    static func regenerateCommand(language: BundleCodegenFlags.Language, package: String?, apiWords: [String], bundle: String, output: String) -> String {
        var words = ["appdna", "bundle", "codegen"]
        if language == .kotlin {
            words += ["--language", "kotlin"]
            if let package, package != KotlinAccessorRenderer.defaultPackage { words += ["--package", package] }
        }
        return ShellWord.line(words + apiWords + [bundle, "-o", output])
    }

    /// A Kotlin package name: dot-separated identifiers (letters, digits, `_`, not starting
    /// with a digit).
    static func kotlinPackage(_ name: String) throws -> String {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !parts.isEmpty && parts.allSatisfy { part in
            guard let first = part.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return part.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        }
        guard valid else { throw Failure(.usage, "--package '\(name)' is not a Kotlin package name (such as com.example.app.appdna)") }
        return name
    }
}
