import Foundation
import TestSupport

/// The generator of `Sources/AppDNAServers/Inspector/InspectorPage.swift`: the inspector
/// page is kept as ordinary files (`Sources/AppDNAServers/Inspector/Page/`: HTML, JavaScript, CSS, which
/// editors, linters and reviewers read as what they are) and embedded in the binary as Swift
/// raw string literals, so `--inspect` reads no file at run time and needs no resource bundle.
/// `GeneratedFilesTests.testInspectorPageIsUpToDate` checks the committed Swift file is this
/// rendering of the committed page files (and rewrites it with APPDNA_UPDATE_GENERATED=1).
enum InspectorPageEmbedding {
    static let folder = "Sources/AppDNAServers/Inspector/Page"
    static let generated = "Sources/AppDNAServers/Inspector/InspectorPage.swift"
    /// (Swift name, file): each file becomes one static constant.
    static let files = [("index", "index.html"), ("script", "inspector.js"), ("style", "inspector.css")]

    static func render() throws -> String {
        var out = """
        // Generated from \(folder)/ by Tests/AppDNACLITests/InspectorPageEmbedding.swift: do not edit.
        // Change the files there, then run
        //     APPDNA_UPDATE_GENERATED=1 swift test --skip-build --filter GeneratedFilesTests
        // The page is a few hand-written files kept as such (HTML, JavaScript, CSS) and embedded
        // here as raw string literals: the binary serves them without reading a file at run time.

        /// The inspector page's files, as `InspectorServer` serves them.
        enum InspectorPage {

        """
        for (name, file) in files {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent("\(folder)/\(file)"), encoding: .utf8)
            precondition(text.hasSuffix("\n") && !text.contains("\r"), "\(file): LF line endings, ending in one")
            // The fewest #s that nothing in the file closes or escapes out of.
            var hashes = "#"
            while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
            out += "    /// \(file)\n"
            out += "    static let \(name) = \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)\n\n"
        }
        out.removeLast()
        return out + "}\n"
    }
}
