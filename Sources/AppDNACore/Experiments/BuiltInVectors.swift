/// Vectors `appdna bucket --self-test` checks in the built binary: published MurmurHash3_x86_32
/// vectors and AppDNA's bucketing cases (both schemes, blank salts, weight truncation).
/// The test suite checks the same and more from Tests/\u{2026}/Fixtures.
public enum BuiltInVectors {
    public struct Murmur: Sendable { public let label: String; public let inputHex: String; public let seed: UInt32; public let hash: UInt32 }
    public struct SDKCase: Sendable { public let experiment, salt, user: String; public let hash, bucket: UInt32; public let weights: [(String, Double)]; public let variant: String }
    public struct DocsCase: Sendable { public let user, experiment, salt: String; public let hash, bucket: UInt32 }

    public static let murmur: [Murmur] = [
        Murmur(label: "empty, seed 0", inputHex: "", seed: 0, hash: 0),
        Murmur(label: "empty, seed 1", inputHex: "", seed: 1, hash: 1364076727),
        Murmur(label: "empty, seed 0xffffffff", inputHex: "", seed: 4294967295, hash: 2180083513),
        Murmur(label: "1-byte tail", inputHex: "21", seed: 0, hash: 1919294708),
        Murmur(label: "2-byte tail", inputHex: "2143", seed: 0, hash: 2700587130),
        Murmur(label: "3-byte tail", inputHex: "214365", seed: 0, hash: 2118813236),
        Murmur(label: "one block", inputHex: "21436587", seed: 0, hash: 4116402539),
        Murmur(label: "one block, seed 0x5082edee", inputHex: "21436587", seed: 1350757870, hash: 593689054),
        Murmur(label: "ff ff ff ff (sign bits)", inputHex: "ffffffff", seed: 0, hash: 1982413648),
        Murmur(label: "00 00 00 00", inputHex: "00000000", seed: 0, hash: 593689054),
        Murmur(label: "a", inputHex: "61", seed: 2538058380, hash: 2141232806),
        Murmur(label: "ab", inputHex: "6162", seed: 2538058380, hash: 1955026322),
        Murmur(label: "abc", inputHex: "616263", seed: 2538058380, hash: 3360318173),
        Murmur(label: "abcd", inputHex: "61626364", seed: 2538058380, hash: 4031219239),
        Murmur(label: "Hello, world!", inputHex: "48656c6c6f2c20776f726c6421", seed: 2538058380, hash: 612912314),
        Murmur(label: "pi x8 (UTF-8, 16 bytes)", inputHex: "cf80cf80cf80cf80cf80cf80cf80cf80", seed: 2538058380, hash: 3581961153),
        Murmur(label: "'a' x 256", inputHex: "61616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161", seed: 2538058380, hash: 926964700),
        Murmur(label: "hello", inputHex: "68656c6c6f", seed: 0, hash: 613153351),
        Murmur(label: "foo (negative as signed int32)", inputHex: "666f6f", seed: 0, hash: 4138058784),
        Murmur(label: "Hello (AppDNA SDK test)", inputHex: "48656c6c6f", seed: 0, hash: 316307400),
        Murmur(label: "Japanese text (AppDNA SDK test)", inputHex: "e697a5e69cace8aa9ee38386e382b9e38388", seed: 0, hash: 3057250137),
        Murmur(label: "emoji (AppDNA SDK test)", inputHex: "f09f8e89f09f9a80f09f92a1", seed: 0, hash: 665358373),
        Murmur(label: "rocket and lizard", inputHex: "4d7920f09f9a802069732066756c6c206f6620f09fa68e2e", seed: 0, hash: 1818098979),
        Murmur(label: "cafe, precomposed e-acute (NFC)", inputHex: "636166c3a9", seed: 0, hash: 605818632),
        Murmur(label: "cafe, e + combining acute (NFD)", inputHex: "63616665cc81", seed: 0, hash: 3014779529),
        Murmur(label: "NUL inside", inputHex: "610062", seed: 0, hash: 1871496870),
        Murmur(label: "test_input seed 42", inputHex: "746573745f696e707574", seed: 42, hash: 1837767272),
    ]

    public static let sdk: [SDKCase] = [
        SDKCase(experiment: "exp_paywall_v3", salt: "a8f3c9d2", user: "user_12345", hash: 3214585791, bucket: 5791, weights: [("control", 0.5), ("variant_b", 0.5)], variant: "variant_b"),
        SDKCase(experiment: "exp_onboard", salt: "salt_x", user: "user_99999", hash: 1911481070, bucket: 1070, weights: [("control", 0.5), ("treatment", 0.5)], variant: "control"),
        SDKCase(experiment: "exp_test", salt: "salt_abc", user: "user_1", hash: 3276853400, bucket: 3400, weights: [("variant_a", 0.7), ("variant_b", 0.3)], variant: "variant_a"),
        SDKCase(experiment: "onboarding-v2", salt: "k3j4h5", user: "user-123", hash: 220853512, bucket: 3512, weights: [("control", 0.5), ("streamlined", 0.5)], variant: "control"),
        SDKCase(experiment: "onboarding-v2", salt: "", user: "user-123", hash: 2553475466, bucket: 5466, weights: [("control", 0.5), ("streamlined", 0.5)], variant: "streamlined"),
        SDKCase(experiment: "onboarding-v2", salt: "   ", user: "user-123", hash: 2553475466, bucket: 5466, weights: [("control", 0.5), ("streamlined", 0.5)], variant: "streamlined"),
        SDKCase(experiment: "paywall_test", salt: "s1", user: "\u{65E5}\u{672C}\u{8A9E}\u{30E6}\u{30FC}\u{30B6}\u{30FC}", hash: 1724589595, bucket: 9595, weights: [("a", 0.34), ("b", 0.33), ("c", 0.33)], variant: "c"),
        SDKCase(experiment: "paywall_test", salt: "s1", user: "caf\u{E9}", hash: 3293252204, bucket: 2204, weights: [("a", 0.57), ("b", 0.43)], variant: "a"),
        SDKCase(experiment: "paywall_test", salt: "s1", user: "cafe\u{301}", hash: 2211567042, bucket: 7042, weights: [("a", 0.57), ("b", 0.43)], variant: "b"),
        SDKCase(experiment: "exp\u{1F389}", salt: "salt\u{1F680}", user: "user\u{1F4A1}", hash: 2672735721, bucket: 5721, weights: [("only", 1.0)], variant: "only"),
    ]

    public static let docs: [DocsCase] = [
        DocsCase(user: "user-123", experiment: "onboarding-v2", salt: "k3j4h5", hash: 1296433473, bucket: 73),
        DocsCase(user: "user_12345", experiment: "exp_paywall_v3", salt: "a8f3c9d2", hash: 611214090, bucket: 90),
        DocsCase(user: "user1", experiment: "exp", salt: "salt", hash: 3450562297, bucket: 97),
        DocsCase(user: "user", experiment: "1exp", salt: "salt", hash: 3450562297, bucket: 97),
        DocsCase(user: "", experiment: "", salt: "", hash: 0, bucket: 0),
        DocsCase(user: "\u{65E5}\u{672C}\u{8A9E}", experiment: "exp", salt: "s", hash: 171219260, bucket: 60),
    ]

    /// weight \u{2192} buckets it owns after truncation.
    public static let truncation: [(weight: Double, buckets: UInt64)] = [
        (0.29, 2900),
        (0.57, 5699),
        (0.58, 5800),
        (0.69, 6899),
        (0.5, 5000),
        (0.1, 1000),
        (0.7, 7000),
    ]
}
