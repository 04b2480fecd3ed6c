import Foundation
import XCTest
@testable import AppDNACore

/// `bucket --vectors` exists so that SDK ports can test themselves. Here deliberately wrong
/// ports — each a bug real ports have shipped — run against the fixed vectors (no generated
/// cases), and each must fail at least one; a port written correctly from the platform facts
/// must pass all. A vector set that a buggy port passes would prove nothing.
final class PortingBugVectorTests: XCTestCase {
    /// One port: (user, experiment, salt, weights) → hash, bucket, variant.
    struct Port: Sendable {
        let name: String
        var hashBytes: @Sendable (String) -> [UInt8] = { Array($0.utf8) }
        var bucketOf: @Sendable (UInt32) -> Int = { Int($0 % 10_000) }
        var edge: @Sendable (Double) -> Int = { Int(UInt32(max(0, $0) * 10_000)) }  // truncation
        var fallsBackToLast = true
        /// traffic_allocation * 10000 made a bucket count: rounded half away from zero (platform
        /// facts 2.5), as Swift's `rounded()` and Kotlin's `Math.round` for positives do.
        var allocationEdge: @Sendable (Double) -> Int = { Int(($0 * 10_000).rounded()) }

        /// The hash, the bucket, and what a device applying traffic allocation assigns (nil:
        /// no variant, or outside the allocation).
        func run(_ c: GoldenVectors.Case) -> (hash: UInt32, bucket: Int, variant: String?) {
            let salt = c.salt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? c.experiment : c.salt
            let hashed = "\(c.experiment).\(salt).\(c.user)"
            let hash = referenceMurmur3(hashBytes(hashed), seed: 0)
            let bucket = bucketOf(hash)
            if let share = c.trafficAllocation,
               bucketOf(referenceMurmur3(hashBytes(hashed + ".allocation"), seed: 0)) >= allocationEdge(share) {
                return (hash, bucket, nil)
            }
            var cumulative = 0
            for (id, weight) in c.variants {
                cumulative += edge(weight)
                if bucket < cumulative { return (hash, bucket, id) }
            }
            return (hash, bucket, fallsBackToLast ? c.variants.last?.variant : nil)
        }
    }

    static let correct = Port(name: "correct")
    static let wrong: [Port] = [
        Port(name: "rounds weight*10000 instead of truncating", edge: { Int(($0 * 10_000).rounded()) }),
        Port(name: "no last-variant fallback", fallsBackToLast: false),
        Port(name: "signed 32-bit modulo", bucketOf: { Int(Int32(bitPattern: $0) % 10_000) }),
        Port(name: "hashes UTF-16 code units (little-endian)", hashBytes: { $0.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }),
        Port(name: "hashes the low byte of each UTF-16 code unit", hashBytes: { $0.utf16.map { UInt8(truncatingIfNeeded: $0) } }),
        Port(name: "NFC-normalises ids before hashing", hashBytes: { Array(UnicodeForms.nfc($0).utf8) }),
    ] + allocationRounding

    /// Ports that get traffic allocation's rounding wrong: only the allocation-rounding vectors
    /// catch them (every other allocation in the vectors is exact at x10000).
    static let allocationRounding: [Port] = [
        Port(name: "floors traffic_allocation * 10000", allocationEdge: { Int(($0 * 10_000).rounded(.down)) }),
        Port(name: "rounds traffic_allocation * 10000 half to even (banker's)", allocationEdge: { Int(($0 * 10_000).rounded(.toNearestOrEven)) }),
    ]

    /// What the vectors say (the tool's own computation, as `bucket --vectors` prints it: the
    /// variant, or none outside the traffic allocation).
    static func expected(_ c: GoldenVectors.Case) -> (hash: UInt32, bucket: Int, variant: String?) {
        let assignment = BucketingScheme.sdk.assign(user: c.user, experiment: c.experiment, salt: c.salt)
        if let share = c.trafficAllocation,
           Int(BucketingScheme.allocationBucket(user: c.user, experiment: c.experiment, salt: c.salt)) >= AssignmentChange.allocationThreshold(share) {
            return (assignment.hash, Int(assignment.bucket), nil)
        }
        return (assignment.hash, Int(assignment.bucket), VariantAllocation(weights: c.variants).variant(forBucket: assignment.bucket))
    }

    static func failures(_ port: Port, _ cases: [GoldenVectors.Case]) -> [String] {
        cases.compactMap { c in
            let got = port.run(c), want = expected(c)
            return got.hash == want.hash && got.bucket == want.bucket && ByteIdentity.same(got.variant, want.variant) ? nil : c.name
        }
    }

    func testACorrectPortPassesEveryVector() {
        XCTAssertEqual(Self.failures(Self.correct, GoldenVectors.cases(count: 500, seed: 3)), [])
    }

    func testEveryWrongPortFailsAFixedVector() {
        for port in Self.wrong {
            let failed = Self.failures(port, GoldenVectors.fixed)
            XCTAssertFalse(failed.isEmpty, "\(port.name) passes every fixed vector")
            print("\(port.name): fails \(failed.count) of \(GoldenVectors.fixed.count) fixed vectors, e.g. \"\(failed.first ?? "")\"")
        }
    }

    /// The rounding ports pass every vector but the allocation-rounding ones: before those were
    /// added, the vectors could not tell them from a correct port.
    func testOnlyTheAllocationRoundingVectorsCatchTheRoundingPorts() {
        let rounding = GoldenVectors.fixed.filter { $0.name.hasPrefix("allocation rounding") }
        let others = GoldenVectors.fixed.filter { !$0.name.hasPrefix("allocation rounding") }
        XCTAssertEqual(rounding.count, 4)
        for port in Self.allocationRounding {
            XCTAssertEqual(Self.failures(port, others), [], "\(port.name) is caught by a vector that was there before")
            XCTAssertFalse(Self.failures(port, rounding).isEmpty, "\(port.name) passes the allocation-rounding vectors")
        }
        // Each rounding case is where its name says: the allocation bucket, in or out on devices.
        for c in rounding {
            let bucket = BucketingScheme.allocationBucket(user: c.user, experiment: c.experiment, salt: c.salt)
            XCTAssertTrue(c.name.contains("allocation bucket \(bucket),"), c.name)
            let inside = Int(bucket) < AssignmentChange.allocationThreshold(c.trafficAllocation)
            XCTAssertEqual(inside, c.name.contains(", in:"), c.name)
        }
        // Generated cases now draw allocations where rounding matters too.
        let generated = GoldenVectors.cases(count: 200, seed: 1).dropFirst(GoldenVectors.fixed.count)
        XCTAssertTrue(generated.contains { $0.trafficAllocation == 0.57 } && generated.contains { $0.trafficAllocation == 0.12345 })
    }

    /// The edges are where they say: a case named "bucket N" lands in bucket N.
    func testTheEdgeCasesLandOnTheirBuckets() throws {
        let named = try NSRegularExpression(pattern: #"bucket (\d+)"#)
        var checked = 0
        for c in GoldenVectors.edges where !c.name.hasPrefix("allocation rounding") {  // those name the allocation bucket
            guard let match = named.firstMatch(in: c.name, range: NSRange(c.name.startIndex..., in: c.name)),
                  let range = Range(match.range(at: 1), in: c.name) else { continue }
            XCTAssertEqual(Self.expected(c).bucket, Int(c.name[range]), c.name)
            checked += 1
        }
        XCTAssertEqual(checked, 10)
    }
}
