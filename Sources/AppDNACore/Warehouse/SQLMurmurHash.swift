/// MurmurHash3_x86_32 (seed 0) of a string's UTF-8 bytes as one SQL expression, unsigned, as
/// `MurmurHash3.x86_32(utf8:)` computes it on devices.
///
/// ClickHouse has it built in. For Spark and DuckDB the hash is spelled out in plain SQL so
/// nothing has to be deployed on the cluster: the string's bytes are read from its hex form,
/// the 4-byte blocks folded with the engine's array reduce, then the tail and the finaliser.
/// All arithmetic stays in signed 64-bit integers below 2^49 (a 32×32-bit product is split in
/// two 32×16-bit halves), because Spark in ANSI mode fails on overflow instead of wrapping.
/// A value used more than once is bound once (a one-element array mapped by a lambda), so the
/// expression stays linear in size.
final class SQLMurmurHash {
    let dialect: SQLDialect
    private var names = 0

    init(dialect: SQLDialect) { self.dialect = dialect }

    /// The unsigned 32-bit hash of `text` (an SQL string expression), as a BIGINT / UInt32.
    func hash(of text: String) -> String {
        if dialect == .clickhouse { return "murmurHash3_32(\(text))" }
        let hexText = dialect == .spark ? "hex(encode(\(text), 'UTF-8'))" : "hex(\(text))"
        return bind(hexText) { hex in
            bind("(length(\(hex)) \(intDiv) 2)") { count in
                let blocks = transform(range("(\(count) \(intDiv) 4)"), parameter: fresh()) { index in
                    block(hex: hex, at: "(4 * \(index))")
                }
                let folded = reduce(blocks, initial: "CAST(0 AS BIGINT)") { h, k in
                    bind(rotl(xor(h, mixK(k)), 13)) { mixed in
                        "((\(mul32(mixed, 5)) + \(0xe654_6b64)) & \(mask))"
                    }
                }
                let tail = bind("(\(count) % 4)") { left in
                    let base = "(\(count) - \(left))"
                    let byte0 = "CASE WHEN \(left) >= 1 THEN \(byte(hex: hex, at: base)) ELSE 0 END"
                    let byte1 = "CASE WHEN \(left) >= 2 THEN \(byte(hex: hex, at: "(\(base) + 1)")) ELSE 0 END"
                    let byte2 = "CASE WHEN \(left) >= 3 THEN \(byte(hex: hex, at: "(\(base) + 2)")) ELSE 0 END"
                    return mixK("(\(byte0) | \(shl(byte1, 8)) | \(shl(byte2, 16)))")
                }
                return finalise(xor(xor(folded, tail), count))
            }
        }
    }

    // MARK: The algorithm's steps

    /// The little-endian 32-bit block starting at byte `offset`.
    private func block(hex: String, at offset: String) -> String {
        let bytes = (0..<4).map { byte(hex: hex, at: "(\(offset) + \($0))") }
        return "(\(bytes[0]) | \(shl(bytes[1], 8)) | \(shl(bytes[2], 16)) | \(shl(bytes[3], 24)))"
    }

    private func mixK(_ k: String) -> String {
        bind(mul32(k, 0xcc9e_2d51)) { first in
            bind(rotl(first, 15)) { rotated in mul32(rotated, 0x1b87_3593) }
        }
    }

    private func finalise(_ h: String) -> String {
        bind(h) { h in
            bind(xor(h, shr(h, 16))) { h in
                bind(mul32(h, 0x85eb_ca6b)) { h in
                    bind(xor(h, shr(h, 13))) { h in
                        bind(mul32(h, 0xc2b2_ae35)) { h in xor(h, shr(h, 16)) }
                    }
                }
            }
        }
    }

    /// (x × c) mod 2^32 for x < 2^32, in two halves so no product reaches 2^63. `x` must be a
    /// bound name (it is used twice).
    private func mul32(_ x: String, _ c: UInt32) -> String {
        "((\(x) * \(c & 0xffff) + \(shl("((\(x) * \(c >> 16)) & 65535)", 16))) & \(mask))"
    }

    /// `x` must be a bound name (it is used twice).
    private func rotl(_ x: String, _ r: Int) -> String {
        "((\(shl(x, r)) | \(shr(x, 32 - r))) & \(mask))"
    }

    private func byte(hex: String, at offset: String) -> String {
        let pair = "substr(\(hex), 2 * \(offset) + 1, 2)"
        switch dialect {
        case .spark: return "CAST(conv(\(pair), 16, 10) AS BIGINT)"
        case .duckdb, .clickhouse: return "CAST('0x' || \(pair) AS BIGINT)"
        }
    }

    // MARK: Dialect primitives

    private let mask = "4294967295"

    private var intDiv: String { dialect == .spark ? "div" : "//" }

    private func xor(_ a: String, _ b: String) -> String {
        dialect == .spark ? "(\(a) ^ \(b))" : "xor(\(a), \(b))"
    }

    private func shl(_ a: String, _ n: Int) -> String {
        dialect == .spark ? "shiftleft(\(a), \(n))" : "(\(a) << \(n))"
    }

    private func shr(_ a: String, _ n: Int) -> String {
        dialect == .spark ? "shiftright(\(a), \(n))" : "(\(a) >> \(n))"
    }

    /// 0, 1, …, count − 1 (empty when count is 0; Spark's `sequence(0, -1)` would count down).
    private func range(_ count: String) -> String {
        dialect == .spark ? "filter(sequence(0, \(count)), i -> i < \(count))" : "range(0, \(count))"
    }

    private func fresh() -> String {
        names += 1
        return "_mh\(names)"
    }

    /// `body` with `value` computed once and named.
    private func bind(_ value: String, _ body: (String) -> String) -> String {
        let name = fresh()
        let inner = body(name)
        switch dialect {
        case .spark: return "transform(array(\(value)), \(name) -> \(inner))[0]"
        case .duckdb, .clickhouse: return "list_transform([\(value)], lambda \(name): \(inner))[1]"
        }
    }

    private func transform(_ list: String, parameter: String, _ body: (String) -> String) -> String {
        let inner = body(parameter)
        switch dialect {
        case .spark: return "transform(\(list), \(parameter) -> \(inner))"
        case .duckdb, .clickhouse: return "list_transform(\(list), lambda \(parameter): \(inner))"
        }
    }

    private func reduce(_ list: String, initial: String, _ body: (String, String) -> String) -> String {
        let (h, k) = (fresh(), fresh())
        let inner = body(h, k)
        switch dialect {
        case .spark: return "aggregate(\(list), \(initial), (\(h), \(k)) -> \(inner))"
        case .duckdb, .clickhouse: return "list_reduce(\(list), lambda \(h), \(k): \(inner), \(initial))"
        }
    }
}
