import Foundation
import XCTest
import TestSupport

/// No dead link in README.md or the guides: every relative link names a file of the repository,
/// and every `#anchor` (in the same document or another) names a heading that exists, spelled as
/// GitHub spells heading anchors.
final class DocumentationLinkTests: XCTestCase {
    static let repository = repositoryRoot

    func testEveryRelativeLinkAndAnchorResolves() throws {
        var checked = 0
        for document in try ReadmeConsoleTests.documents() {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(document), encoding: .utf8)
            let links = Self.links(in: text)
            checked += links.count
            for problem in Self.deadLinks(links, in: document, read: Self.readRepositoryFile) {
                XCTFail(problem)
            }
        }
        XCTAssertGreaterThan(checked, 20, "the documents link to each other")
    }

    /// The checker finds what it is for: a missing file, a missing anchor in another file, a
    /// missing anchor in the same file; and accepts what is there.
    func testAPlantedDeadLinkIsReported() {
        let files = ["docs/a.md": "# Title\n\n## Exit status 64: usage\n\ntext", "README.md": "# Top"]
        let document = """
        # Here
        [ok](a.md) [ok](a.md#exit-status-64-usage) [ok](../README.md#top) [ok](#here)
        [dead](b.md) [dead](a.md#no-such-heading) [dead](#nowhere) [web](https://example.com)
        `[not a link](c.md)`
        ```sh
        [not a link](d.md)
        ```
        """
        let problems = Self.deadLinks(Self.links(in: document), in: "docs/guide.md") { $0 == "docs/guide.md" ? document : files[$0] }
        XCTAssertEqual(problems.count, 3, problems.joined(separator: "\n"))
        XCTAssertTrue(problems[0].contains("b.md"))
        XCTAssertTrue(problems[1].contains("#no-such-heading"))
        XCTAssertTrue(problems[2].contains("#nowhere"))
    }

    struct Link {
        let line: Int
        let target: Substring
    }

    /// Markdown links `[text](target)` outside code blocks and inline code.
    static func links(in text: String) -> [Link] {
        var links: [Link] = []
        var inFence = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            // Inline code spans hold example syntax, not links.
            let prose = line.replacing(/`[^`]*`/, with: "")
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) {
                links.append(Link(line: number + 1, target: match.1))
            }
        }
        return links
    }

    /// One message per link that does not resolve; `read` gives a repository file's text (nil
    /// when there is no such file).
    static func deadLinks(_ links: [Link], in document: String, read: (String) -> String?) -> [String] {
        let directory = document.split(separator: "/").dropLast().joined(separator: "/")
        var problems: [String] = []
        for link in links where !link.target.contains(":") {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let file = parts[0].isEmpty ? document : normalised(directory.isEmpty ? String(parts[0]) : directory + "/" + parts[0])
            guard let text = read(file) else {
                problems.append("\(document):\(link.line): \(link.target): no file \(file)")
                continue
            }
            if parts.count == 2, !anchors(in: text).contains(String(parts[1])) {
                problems.append("\(document):\(link.line): \(link.target): no heading with the anchor #\(parts[1]) in \(file)")
            }
        }
        return problems
    }

    /// `docs/../README.md` → `README.md`; a trailing `/` (a folder) is kept off.
    static func normalised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == ".." { parts.removeLast() } else if part != "." { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    /// A file's text, a folder as an empty text (a link to a folder resolves), nil when absent.
    static func readRepositoryFile(_ path: String) -> String? {
        let url = repository.appendingPathComponent(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return "" }
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped,
    /// spaces as hyphens, a repeated heading suffixed -1, -2…
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") || line.hasPrefix("~~~") { inFence.toggle(); continue }
            guard !inFence, let match = line.wholeMatch(of: /#{1,6} +(.*)/) else { continue }
            let slug = String(match.1.lowercased().unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                    return Character(scalar)
                }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }
}
