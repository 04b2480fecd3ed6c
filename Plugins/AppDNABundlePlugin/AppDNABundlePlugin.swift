import Foundation
import PackagePlugin

/// The app's build checks its config bundle: a target that lists this plugin and holds an
/// `appdna-config.json` gets, at build time, `appdna bundle codegen` run on it — which
/// validates first (an invalid bundle fails the build with `FILE:LINE:COLUMN: error:` lines
/// that Xcode and `swift build` show at the bundle) and then writes the typed accessors into
/// the build, so the app's code uses them with no generated file to commit.
///
///     .target(name: "App", resources: [.copy("appdna-config.json")],
///             plugins: [.plugin(name: "AppDNABundlePlugin", package: "appdna")])
@main
struct AppDNABundlePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let sources = target as? SourceModuleTarget else { return [] }
        let bundles = sources.sourceFiles.map(\.url).filter { $0.lastPathComponent == Self.bundleName }
        return try Self.commands(bundles: bundles, tool: context.tool(named: "appdna").url, workDirectory: context.pluginWorkDirectoryURL)
    }

    static let bundleName = "appdna-config.json"

    /// One command per target: validate and generate `AppDNAConfig.swift` in the plugin's
    /// work directory (the build compiles it with the target's sources).
    static func commands(bundles: [URL], tool: URL, workDirectory: URL) throws -> [Command] {
        guard let bundle = bundles.first else { return [] }
        let output = workDirectory.appendingPathComponent("AppDNAConfig.swift")
        return [.buildCommand(displayName: "appdna: validate \(bundle.lastPathComponent) and generate its accessors",
                              executable: tool,
                              arguments: ["bundle", "codegen", "--language", "swift", bundle.path, "-o", output.path],
                              inputFiles: [bundle], outputFiles: [output])]
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// The same in an Xcode project (File ▸ Add Package Dependencies, then the target's Build
/// Phases ▸ Run Build Tool Plug-ins): the bundle is one of the target's files.
extension AppDNABundlePlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let bundles = target.inputFiles.map(\.url).filter { $0.lastPathComponent == Self.bundleName }
        return try Self.commands(bundles: bundles, tool: context.tool(named: "appdna").url, workDirectory: context.pluginWorkDirectoryURL)
    }
}
#endif
