import Foundation
import XCTest
import TestSupport

/// The SwiftPM build-tool plugin as an app uses it: a fixture package (Tests/Fixtures/PluginApp)
/// depends on this package by path and lists `AppDNABundlePlugin`. `swift build` generates the
/// accessors from its appdna-config.json and compiles the app against them; a broken bundle
/// fails the build with the validator's `FILE:LINE:COLUMN: error:` line.
final class PluginBuildEndToEndTests: XCTestCase {
    func testTheAppBuildsAgainstTheGeneratedAccessorsAndABrokenBundleFailsTheBuild() throws {
        guard let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw XCTSkip("swift not found at /opt/swift/usr/bin or /usr/bin")
        }
        let scratch = try ScratchDirectory("plugin-app")
        defer { scratch.remove() }
        // SwiftPM names a path dependency after its directory: link the checkout as "appdna".
        let link = scratch.url.appendingPathComponent("appdna")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: repositoryRoot)
        let app = scratch.url.appendingPathComponent("PluginApp")
        let fixture = repositoryRoot.appendingPathComponent("Tests/Fixtures/PluginApp")
        try FileManager.default.copyItem(at: fixture, to: app)
        let template = try String(contentsOf: app.appendingPathComponent("Package.swift.template"), encoding: .utf8)
        try template.replacingOccurrences(of: "APPDNA_PACKAGE_PATH", with: link.path)
            .write(to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: app.appendingPathComponent("Package.swift.template"))

        let build = try ProcessRunner.run(swift, ["build", "--package-path", app.path], environment: nil)
        XCTAssertEqual(build.status, 0, build.stdout + build.stderr)
        let run = try ProcessRunner.run(app.appendingPathComponent(".build/debug/PluginApp").path, [], environment: nil)
        XCTAssertEqual(run.stdout, "Hello 20 true streamlined premium-annual\n", run.stderr)

        let bundle = app.appendingPathComponent("Sources/PluginApp/appdna-config.json")
        try (try String(contentsOf: bundle, encoding: .utf8)).replacingOccurrences(of: "\"bundle_version\": 12", with: "\"bundle_version\": \"twelve\"")
            .write(to: bundle, atomically: true, encoding: .utf8)
        let broken = try ProcessRunner.run(swift, ["build", "--package-path", app.path], environment: nil)
        XCTAssertNotEqual(broken.status, 0, "an invalid bundle fails the build")
        XCTAssertTrue((broken.stdout + broken.stderr).contains(bundle.path + ":2:21: error: bundle_version must be an integer >= 0, not \"twelve\" [E005]"),
                      broken.stdout + broken.stderr)
    }
}
