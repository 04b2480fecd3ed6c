import Foundation

/// The built `appdna` the tests run as a separate process.
public enum BuiltBinary {
    /// The binary `APPDNA_TEST_BINARY` names (`.ci/run` names the release binary it built, the
    /// one that ships), else the one `swift test` built beside the test bundle.
    public static let url: URL = {
        if let named = named { return named }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        // On macOS the runner lives inside an .xctest bundle; on Linux beside it.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("appdna").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("appdna")
    }()

    /// An optimised binary, for the tests that stream millions of lines (a debug build is ~20
    /// times slower): the one `APPDNA_TEST_BINARY` names, else `.build/release/appdna` when it
    /// was built after the debug binary beside the tests (so from sources at least as new),
    /// else nil: a local `swift test` without a fresh release build.
    public static let optimised: URL? = {
        if let named = named { return named }
        let release = repositoryRoot.appendingPathComponent(".build/release/appdna")
        guard let built = modified(release), let debug = modified(url), built >= debug else { return nil }
        return release
    }()

    private static let named: URL? = {
        guard let path = ProcessInfo.processInfo.environment["APPDNA_TEST_BINARY"], !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).absoluteURL
    }()

    private static func modified(_ file: URL) -> Date? {
        guard FileManager.default.isExecutableFile(atPath: file.path) else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
    }
}
