import Foundation
import XCTest
import TestSupport

/// Shared state the compiler can see: state threads share lives in a `Locked` box, the one
/// audited `@unchecked Sendable` of shared mutable state. The few other sites are raw memory or
/// C function pointers that Swift cannot call Sendable; each says why next to it. A new
/// unchecked site fails here: put the state in a `Locked` box instead, or, if it truly cannot
/// be, explain it (`Unchecked because …`) and raise the limit in review.
final class UncheckedSendableTests: XCTestCase {
    static let limit = 5
    static let marker = "@unchecked Sendable"

    /// The sites in `source` ("file:line"), each with whether a comment just above says why.
    static func sites(_ source: String, file: String) -> [(site: String, explained: Bool)] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return lines.indices.filter { lines[$0].contains(marker) && !lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix("//") }.map { index in
            let above = lines[max(0, index - 6)..<index].joined(separator: "\n").lowercased()
            return ("\(file):\(index + 1)", above.contains("unchecked because") || above.contains("why unchecked"))
        }
    }

    func testAtMostFiveUncheckedSitesEachSayingWhy() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 100)
        var all: [(site: String, explained: Bool)] = []
        for file in files {
            all += Self.sites(try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        XCTAssertLessThanOrEqual(all.count, Self.limit, "put the state in a Locked box:\n" + all.map(\.site).joined(separator: "\n"))
        XCTAssertEqual(all.filter { !$0.explained }.map(\.site), [], "say why next to it (`Unchecked because …`)")
        XCTAssertTrue(all.contains { $0.site.hasPrefix("AppDNACore/Platform/Locked.swift:") }, "the Locked box is the audited site")
    }

    func testPlantedSitesAreCaught() {
        let planted = """
            final class Counter: @unchecked Sendable {
                var count = 0
            }

            // Unchecked because the pointer is only an address here.
            struct Address: @unchecked Sendable {}
            // A comment naming @unchecked Sendable is not a site.
            """
        let found = Self.sites(planted, file: "planted.swift")
        XCTAssertEqual(found.map(\.site), ["planted.swift:1", "planted.swift:6"])
        XCTAssertEqual(found.map(\.explained), [false, true])
    }
}
