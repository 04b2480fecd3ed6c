import Foundation
import XCTest
import TestSupport

/// The SwiftPM build-tool plugin as an app uses it: a fixture package (Tests/Fixtures/PluginApp)
/// lists `AppDNABundlePlugin` from a package named appdna. `swift build` generates the accessors
/// from its appdna-config.json and compiles the app against them; a broken bundle fails the
/// build with the validator's `FILE:LINE:COLUMN: error:` line.
///
/// The appdna package the app depends on is this checkout's plugin source (linked, not copied)
/// with its tool, the `appdna` executable target, served as an artifact bundle of the binary the
/// suite already built: a path dependency on the checkout itself would compile the whole package
/// again in the app's build (minutes on two cores) to test the same plugin and the same binary.
/// That this package declares the plugin the same way (a build tool that depends on the `appdna`
/// executable) is checked on its manifest.
final class PluginBuildEndToEndTests: XCTestCase {
    func testThePackageDeclaresTheBuildToolPluginOnTheAppdnaExecutable() throws {
        let swift = try requireTool("swift", because: "reads the package manifest")
        // Its own scratch path: `swift test` holds the checkout's .build while the tests run.
        let scratch = try ScratchDirectory("plugin-manifest")
        defer { scratch.remove() }
        let dump = try ProcessRunner.run(swift, ["package", "--package-path", repositoryRoot.path, "--scratch-path", scratch.path, "dump-package"],
                                         environment: nil)
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let products = try XCTUnwrap(manifest["products"] as? [[String: Any]])
        let targets = try XCTUnwrap(manifest["targets"] as? [[String: Any]])
        let product = try XCTUnwrap(products.first { $0["name"] as? String == "AppDNABundlePlugin" }, "the plugin is a product")
        XCTAssertNotNil((product["type"] as? [String: Any])?["plugin"], "\(product)")
        XCTAssertEqual(product["targets"] as? [String], ["AppDNABundlePlugin"])
        let plugin = try XCTUnwrap(targets.first { $0["name"] as? String == "AppDNABundlePlugin" })
        XCTAssertEqual(plugin["type"] as? String, "plugin")
        XCTAssertNotNil((plugin["pluginCapability"] as? [String: Any])?["buildTool"], "\(plugin)")
        XCTAssertEqual(String(describing: plugin["dependencies"] ?? ""), String(describing: [["byName": ["appdna", NSNull()]]]))
        let tool = try XCTUnwrap(targets.first { $0["name"] as? String == "appdna" })
        XCTAssertEqual(tool["type"] as? String, "executable", "the plugin's tool is the appdna command")
    }

    func testTheAppBuildsAgainstTheGeneratedAccessorsAndABrokenBundleFailsTheBuild() throws {
        let swift = try requireTool("swift", because: "builds the app that uses the plugin")
        let scratch = try ScratchDirectory("plugin-app")
        defer { scratch.remove() }
        // SwiftPM names a path dependency after its directory: the package is "appdna".
        let package = scratch.url.appendingPathComponent("appdna")
        try makePluginPackage(at: package, swift: swift)
        let app = scratch.url.appendingPathComponent("PluginApp")
        let fixture = repositoryRoot.appendingPathComponent("Tests/Fixtures/PluginApp")
        try FileManager.default.copyItem(at: fixture, to: app)
        let template = try String(contentsOf: app.appendingPathComponent("Package.swift.template"), encoding: .utf8)
        try template.replacingOccurrences(of: "APPDNA_PACKAGE_PATH", with: package.path)
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

    /// A package named appdna holding this checkout's plugin (its directory linked) and, for
    /// the plugin's `appdna` tool, an artifact bundle of the built binary for this host.
    func makePluginPackage(at package: URL, swift: String) throws {
        let files = FileManager.default
        let binary = package.appendingPathComponent("appdna.artifactbundle/appdna/bin")
        try files.createDirectory(at: binary, withIntermediateDirectories: true)
        try files.createSymbolicLink(at: binary.appendingPathComponent("appdna"), withDestinationURL: Binary.url)
        let targetInfo = try ProcessRunner.run(swift, ["-print-target-info"], environment: nil)
        let target = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(targetInfo.stdout.utf8)) as? [String: Any])["target"] as? [String: Any]
        let triple = try XCTUnwrap(target?["unversionedTriple"] as? String, targetInfo.stdout)
        try """
        {"schemaVersion": "1.0", "artifacts": {"appdna": {"version": "0.0.0", "type": "executable",
         "variants": [{"path": "appdna/bin/appdna", "supportedTriples": ["\(triple)"]}]}}}
        """.write(to: package.appendingPathComponent("appdna.artifactbundle/info.json"), atomically: true, encoding: .utf8)
        try files.createDirectory(at: package.appendingPathComponent("Plugins"), withIntermediateDirectories: true)
        try files.createSymbolicLink(at: package.appendingPathComponent("Plugins/AppDNABundlePlugin"),
                                     withDestinationURL: repositoryRoot.appendingPathComponent("Plugins/AppDNABundlePlugin"))
        try """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "appdna",
            platforms: [.macOS(.v13)],
            products: [.plugin(name: "AppDNABundlePlugin", targets: ["AppDNABundlePlugin"])],
            targets: [
                .binaryTarget(name: "appdna", path: "appdna.artifactbundle"),
                .plugin(name: "AppDNABundlePlugin", capability: .buildTool(), dependencies: ["appdna"]),
            ]
        )
        """.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    }
}
