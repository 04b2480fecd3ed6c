import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest

/// Issue 51.5 / 52.2: every block of docs/device-variants.md runs as written. The ```console
/// blocks are run by `ReadmeConsoleTests`; this checks that there are no others but the
/// configuration snippets, which are parsed here (XML as a plist or manifest fragment, the
/// .xcconfig line as Xcode reads it) and hold the keys and values the SDKs read (platform
/// facts §7).
final class DeviceVariantsGuideTests: XCTestCase {
    static let guide = repositoryRoot.appendingPathComponent("docs/device-variants.md")

    /// The fenced blocks: language and text.
    static func blocks() throws -> [(language: String, text: String)] {
        var blocks: [(String, String)] = []
        var current: (String, [String])?
        for line in try String(contentsOf: guide, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if let open = current {
                if line == "```" { blocks.append((open.0, open.1.joined(separator: "\n"))); current = nil } else { current!.1.append(String(line)) }
            } else if line.hasPrefix("```") {
                current = (String(line.dropFirst(3)), [])
            }
        }
        return blocks
    }

    func testEveryBlockIsRunOrParsedAndNamesTheKeysTheSDKsRead() throws {
        let blocks = try Self.blocks()
        XCTAssertEqual(Set(blocks.map(\.language)), ["console", "xml", "xcconfig"], "a block of another kind would go unchecked")
        XCTAssertGreaterThanOrEqual(blocks.filter { $0.language == "console" }.count, 4)
        let xml = blocks.filter { $0.language == "xml" }.map(\.text)
        XCTAssertEqual(xml.count, 2)
        for fragment in xml {
            let parser = XMLParser(data: Data("<root>\(fragment)</root>".utf8))
            XCTAssertTrue(parser.parse(), "not well-formed XML: \(fragment)")
        }
        XCTAssertTrue(xml[0].contains("<key>AppDNABaseURLOverride</key>\n<string>http://"), xml[0])
        XCTAssertTrue(xml[0].contains("<key>NSAllowsLocalNetworking</key>\n  <true/>"), xml[0])
        XCTAssertTrue(xml[1].contains(#"<meta-data android:name="ai.appdna.sdk.BASE_URL_OVERRIDE" android:value="http://"#), xml[1])
        XCTAssertTrue(xml[1].contains(#"android:usesCleartextTraffic="true""#), xml[1])
        // In an .xcconfig, `//` starts a comment: the value must not contain it, and `$()`
        // (empty) between the slashes gives the URL back.
        let config = try XCTUnwrap(blocks.first { $0.language == "xcconfig" }?.text)
        let value = try XCTUnwrap(config.split(separator: "=", maxSplits: 1).last).trimmingCharacters(in: .whitespaces)
        XCTAssertFalse(value.contains("//"))
        XCTAssertTrue(value.replacingOccurrences(of: "$()", with: "").hasPrefix("http://"), value)
        // The plist and manifest name the same server.
        let url = value.replacingOccurrences(of: "$()", with: "")
        XCTAssertTrue(xml[0].contains("<string>\(url)</string>") && xml[1].contains("android:value=\"\(url)\""))
    }
}
