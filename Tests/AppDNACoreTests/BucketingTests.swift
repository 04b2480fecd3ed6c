import Foundation
import XCTest
@testable import AppDNACore

final class BucketingTests: XCTestCase {
    func testEverySDKCaseIncludingBlankSaltsAndNonASCII() throws {
        let cases = (try Fixtures.json("bucketing.json")["sdk"] as! [String: Any])["cases"] as! [[String: Any]]
        XCTAssertEqual(cases.count, 10)
        for item in cases {
            let user = item["user"] as! String, experiment = item["experiment"] as! String, salt = item["salt"] as! String
            let assignment = BucketingScheme.sdk.assign(user: user, experiment: experiment, salt: salt)
            XCTAssertEqual(assignment.hashedString, item["hashed_string"] as! String)
            XCTAssertEqual(Array(assignment.hashedString.utf8), Array((item["hashed_string"] as! String).utf8), "bytes, not just canonically equal")
            XCTAssertEqual(assignment.hash, UInt32(item["hash"] as! UInt64))
            XCTAssertEqual(assignment.bucket, UInt32(item["bucket"] as! Int))
            let weights = (item["weights"] as! [[String: Any]]).map { ($0["id"] as! String, ($0["weight"] as! NSNumber).doubleValue) }
            XCTAssertEqual(VariantAllocation(weights: weights).variant(forBucket: assignment.bucket), item["variant"] as? String, "\(user)")
        }
    }

    func testEveryDocsCaseIncludingTheSeparatorCollision() throws {
        let cases = (try Fixtures.json("bucketing.json")["docs"] as! [String: Any])["cases"] as! [[String: Any]]
        for item in cases {
            let assignment = BucketingScheme.docs.assign(user: item["user"] as! String, experiment: item["experiment"] as! String, salt: item["salt"] as! String)
            XCTAssertEqual(assignment.hashedString, item["hashed_string"] as! String)
            XCTAssertEqual(assignment.hash, UInt32(item["hash"] as! UInt64))
            XCTAssertEqual(assignment.bucket, UInt32(item["bucket"] as! Int))
            XCTAssertLessThan(assignment.bucket, 100)
        }
    }

    func testWeightTruncationCountsExactlyAsDevices() throws {
        let rows = (try Fixtures.json("bucketing.json")["sdk"] as! [String: Any])["weight_truncation"] as! [[String: Any]]
        for row in rows {
            let weight = (row["weight"] as! NSNumber).doubleValue
            XCTAssertEqual(VariantAllocation.truncatedShare(weight), UInt64(row["counts_as"] as! Int), "\(weight)")
        }
        // 0.57 owns 5699 buckets; the bucket truncation shaves off goes to the last variant.
        let allocation = VariantAllocation(weights: [("a", 0.57), ("b", 0.43)])
        XCTAssertEqual(allocation.ranges.map(\.bucketCount), [5699, 4301])
        XCTAssertEqual(allocation.variant(forBucket: 5698), "a")
        XCTAssertEqual(allocation.variant(forBucket: 5699), "b")
        XCTAssertTrue(allocation.truncationLoss)
    }

    func testBadWeightsCountAsZeroAndLeftoverBucketsGoToTheLastVariant() {
        let allocation = VariantAllocation(weights: [("nan", .nan), ("neg", -0.5), ("inf", .infinity), ("half", 0.5), ("last", 0.1)])
        XCTAssertEqual(allocation.ranges.map(\.bucketCount), [0, 0, 0, 5000, 5000])
        XCTAssertEqual(allocation.variant(forBucket: 9999), "last")
        XCTAssertNil(VariantAllocation(weights: []).variant(forBucket: 1))
        let overfull = VariantAllocation(weights: [("a", 0.8), ("b", 0.8)])
        XCTAssertEqual(overfull.ranges.map(\.bucketCount), [8000, 2000])
    }

    func testVariantListParsing() throws {
        let parsed = try VariantWeights.parse("control=0.5,variant_b=0.5")
        XCTAssertEqual(parsed.map(\.variant), ["control", "variant_b"])
        for bad in ["control", "=0.5", "a=x,b=1", "a=1.5,b=-0.5", "a=0.5,a=0.5", "a=0.5,b=0.4", "a=0.5,,b=0.5", "a=nan"] {
            XCTAssertThrowsError(try VariantWeights.parse(bad), bad) { error in
                XCTAssertEqual((error as? Failure)?.kind, .usage)
            }
        }
        XCTAssertNoThrow(try VariantWeights.parse("a=0.1,b=0.2,c=0.7"), "0.1 + 0.2 + 0.7 is within the tolerance")
    }

    /// Experiment ids of 1 to 4 bytes: the fixed prefix (`exp.exp.`, mixed once) ends 0 to 3
    /// bytes past a 4-byte block, which each user's hash must pick up.
    func testBatchBucketerMatchesOneAtATime() {
        for scheme in BucketingScheme.allCases {
            for experiment in ["e", "ex", "exp", "expe"] {
                var batch = BatchBucketer(scheme: scheme, experiment: experiment, salt: " ", allocation: VariantAllocation(weights: [("a", 0.3), ("b", 0.7)]))
                var allocation = BatchBucketer.trafficAllocation(experiment: experiment, salt: "s")
                for user in ["", "u", "user-1", "日本語ユーザー", String(repeating: "x", count: 300)] {
                    let single = scheme.assign(user: user, experiment: experiment, salt: " ")
                    var copy = user
                    let result = copy.withUTF8 { batch.assign(UnsafeRawBufferPointer($0)) }
                    XCTAssertEqual(result.hash, single.hash, "\(scheme) \(experiment) \(user)")
                    XCTAssertEqual(result.bucket, single.bucket)
                    XCTAssertEqual(copy.withUTF8 { allocation.assign(UnsafeRawBufferPointer($0)) }.bucket,
                                   BucketingScheme.allocationBucket(user: user, experiment: experiment, salt: "s"), "\(experiment) \(user)")
                }
            }
        }
    }

    func testBlankSaltIsAnyWhiteSpace() {
        XCTAssertTrue(BucketingScheme.isBlank(""))
        XCTAssertTrue(BucketingScheme.isBlank(" \t\n\u{3000}"))
        XCTAssertFalse(BucketingScheme.isBlank(" x "))
        XCTAssertEqual(BucketingScheme.docs.effectiveSalt("", experiment: "e"), "")
    }
}
