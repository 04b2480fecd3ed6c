/// Unicode normalisation forms of an id. The same visible text can arrive as different bytes
/// (`café` precomposed vs `e` + U+0301), and MurmurHash3 sees bytes, so a user id typed on one
/// system and stored on another can land in another bucket.
public enum UnicodeForms {
    /// NFC, from the standard library.
    public static func nfc(_ text: String) -> String {
        String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// NFD: full canonical decomposition, then canonical ordering of combining marks.
    public static func nfd(_ text: String) -> String {
        var scalars: [Unicode.Scalar] = []
        for scalar in text.unicodeScalars {
            decompose(scalar, into: &scalars)
        }
        reorderCombiningMarks(&scalars)
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    private static func decompose(_ scalar: Unicode.Scalar, into output: inout [Unicode.Scalar]) {
        let value = scalar.value
        // Hangul syllables decompose arithmetically (Unicode §3.12).
        if (0xAC00...0xD7A3).contains(value) {
            let index = value - 0xAC00
            output.append(Unicode.Scalar(0x1100 + index / 588)!)
            output.append(Unicode.Scalar(0x1161 + (index % 588) / 28)!)
            if index % 28 != 0 { output.append(Unicode.Scalar(0x11A7 + index % 28)!) }
            return
        }
        if value >= 0xC0, let parts = decompositions[value] {
            output += parts
        } else {
            output.append(scalar)
        }
    }

    /// Stable sort of each run of non-starters by combining class.
    private static func reorderCombiningMarks(_ scalars: inout [Unicode.Scalar]) {
        var start = 0
        while start < scalars.count {
            guard scalars[start].properties.canonicalCombiningClass.rawValue != 0 else {
                start += 1
                continue
            }
            var end = start
            while end < scalars.count && scalars[end].properties.canonicalCombiningClass.rawValue != 0 { end += 1 }
            let run = scalars[start..<end].enumerated().sorted {
                let a = $0.element.properties.canonicalCombiningClass.rawValue
                let b = $1.element.properties.canonicalCombiningClass.rawValue
                return a != b ? a < b : $0.offset < $1.offset
            }.map(\.element)
            scalars.replaceSubrange(start..<end, with: run)
            start = end
        }
    }

    /// Parsed once, on first use: only `--explain` on non-ASCII input pays for it.
    private static let decompositions: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for entry in CanonicalDecompositionTable.entries.split(separator: ";") {
            guard let colon = entry.firstIndex(of: ":"),
                  let key = UInt32(entry[..<colon], radix: 16) else { continue }
            let parts = entry[entry.index(after: colon)...].split(separator: ",").compactMap {
                UInt32($0, radix: 16).flatMap(Unicode.Scalar.init)
            }
            table[key] = parts
        }
        return table
    }()
}
